// Which of a session's models need the user's attention, and the one-click switch for each: a
// deprecated model (end of life ahead or past) or one the server refused (model_not_found).
import { cliModelAliases, defaultModelIds, deprecationOf } from '@/lib/config/model-catalog';
import type { PublicLayerModelConfig } from '@/lib/config/model-config';

export type ModelLayer = 'c_model' | 's_model';

export interface ModelNotice {
  layer: ModelLayer;
  model: string;
  /** What the user reads: the model, what is wrong, and when. */
  message: string;
  /** The model the switch button sets, when there is an obvious one. */
  replacement?: string;
}

const layerNames: Record<ModelLayer, string> = { c_model: 'Internal Dialog', s_model: 'Subconscious' };

/** On the CLI the alias of the model's line is the lasting answer; on the API, the current id. */
function replacementFor(config: PublicLayerModelConfig, layer: ModelLayer, suggested?: string): string | undefined {
  if (config.backend === 'claude_code_cli') {
    const line = cliModelAliases.find((alias) => config.model.toLowerCase().includes(alias));
    return line ?? defaultModelIds.claude_code_cli![layer];
  }
  if (config.backend === 'anthropic') return suggested ?? defaultModelIds.anthropic![layer];
  return undefined;
}

export function modelNotices(input: {
  models: Record<ModelLayer, PublicLayerModelConfig>;
  lastError?: { layer: 'internal' | 'subconscious'; kind: string; message: string } | null;
  now?: Date;
}): ModelNotice[] {
  const notices: ModelNotice[] = [];
  for (const layer of ['c_model', 's_model'] as const) {
    const config = input.models[layer];
    const refused = input.lastError?.kind === 'model_not_found' && input.lastError.layer === (layer === 'c_model' ? 'internal' : 'subconscious');
    const deprecation = deprecationOf(config.model, input.now);
    const replacement = replacementFor(config, layer, deprecation?.replacement);
    const switchable = replacement && replacement !== config.model ? { replacement } : {};
    if (refused) {
      notices.push({ layer, model: config.model, message: `${layerNames[layer]}: the server does not serve ${config.model} — "${input.lastError!.message}"`, ...switchable });
    } else if (deprecation) {
      const when = deprecation.ended ? `reached its end of life on ${deprecation.endOfLife}` : `is deprecated and reaches its end of life on ${deprecation.endOfLife}`;
      notices.push({ layer, model: config.model, message: `${layerNames[layer]}: ${config.model} ${when}`, ...switchable });
    }
  }
  return notices;
}
