// Per-layer model configuration and session parameters (seed 000 section 6.3; ARCHITECTURE §8).
// The seed's own keys (c_model, s_model, backend, model, max_tokens, endpoint) are kept as is:
// `c_model` is the Internal Dialog's model (the seed's conscious layer, which answers) and
// `s_model` the Subconscious's (the cheap one in the perpetual loop) — the UI says those names.
import { z } from 'zod';
import { timeZoneSchema } from './time-zone';
import { sameKeyScope } from './key-scope';
import { backendKinds, defaultModelIds, type BackendKind } from './model-catalog';

const httpUrl = z
  .string()
  .trim()
  .url({ message: 'must be a full URL such as http://localhost:11434/v1' })
  .refine((value) => /^https?:\/\//i.test(value), { message: 'must start with http:// or https://' });

const layerFields = {
  backend: z.enum(backendKinds, {
    message: `backend must be one of ${backendKinds.join(', ')}`,
  }),
  model: z.string().trim().min(1, 'model is required').max(200),
  max_tokens: z.number().int().min(1).max(200_000),
  endpoint: httpUrl.optional(),
  /** Write-only. An empty string clears a stored key; absent keeps the stored one. */
  api_key: z.string().max(500).optional(),
  cli_path: z.string().trim().min(1).max(1000).optional(),
  /** Context window in tokens; absent means the model's known default. */
  context_window: z.number().int().min(1024).max(10_000_000).optional(),
};

const endpointRequired = (config: { backend: string; endpoint?: string }, context: z.RefinementCtx) => {
  if (config.backend === 'openai_compatible' && !config.endpoint) {
    context.addIssue({
      code: 'custom',
      path: ['endpoint'],
      message: 'endpoint is required for an OpenAI-compatible server (e.g. http://localhost:11434/v1)',
    });
  }
};

/** A model a layer falls back to (issue 78 §2): a layer's own fields, no fallbacks of its own. */
export const fallbackModelConfigSchema = z.object(layerFields).strict().superRefine(endpointRequired);
export type FallbackModelConfig = z.infer<typeof fallbackModelConfigSchema>;

/** The most fallbacks a layer names. */
export const MAX_FALLBACKS = 3;

export const layerModelConfigSchema = z
  .object({
    ...layerFields,
    /**
     * Tried in order when a call fails with what another backend could serve (rate limited past
     * its retries, overloaded, out of quota, unreachable, timed out, a server error) before the
     * reply has spoken (lib/mind/failover.ts); absent = none.
     */
    fallbacks: z.array(fallbackModelConfigSchema).max(MAX_FALLBACKS, `at most ${MAX_FALLBACKS} fallbacks`).optional(),
  })
  .strict()
  .superRefine(endpointRequired);

export type LayerModelConfig = z.infer<typeof layerModelConfigSchema>;

/** `c_model`: the Internal Dialog's model; `s_model`: the Subconscious's (seed 000's keys). */
export const modelsConfigSchema = z
  .object({ c_model: layerModelConfigSchema, s_model: layerModelConfigSchema })
  .strict();
export type ModelsConfig = z.infer<typeof modelsConfigSchema>;

export const pacingModes = ['adaptive', 'continuous'] as const;
export const triggerModes = ['tag', 'length'] as const;

export const sessionParamsSchema = z
  .object({
    summary_every_n: z.number().int().min(1).max(1000),
    pacing: z.enum(pacingModes),
    trigger_mode: z.enum(triggerModes),
    trigger_threshold: z.number().int().min(1).max(100_000),
    spontaneous_cap: z.number().int().min(0).max(100),
    /** How deep rest gets while nothing new arrives (lib/mind/rest.ts); absent = 6 hours. */
    rest_ceiling_minutes: z.number().int().min(5).max(1440).optional(),
    /** The conversation's time zone (its persona's household): dreaming, quiet hours and `<rest>until 08:00` keep it; absent = the server's clock. */
    time_zone: timeZoneSchema.optional(),
    /** The hour of the night (the session's time zone, 0–23) when a resting mind dreams (consolidates); absent = 3. */
    dream_hour: z.number().int().min(0).max(23).optional(),
    /** Pieces of news since the last dream after which it dreams once the user is away, without waiting for the night; absent = 40. */
    dream_after: z.number().int().min(1).max(100_000).optional(),
    /** Cycles the Subconscious may spend on its own thoughts after something new; absent = 2. */
    idle_thoughts: z.number().int().min(0).max(100_000).optional(),
    /** Days without anything new after which the mind is dormant: no cycle, no dreaming, until something arrives; absent = 14. */
    dormant_after_days: z.number().int().min(1).max(365).optional(),
    /** Hours (the server's clock, e.g. "22:00-07:00") in which the agent's unprompted words wait for their end; replies and cards go on. */
    quiet_hours: z.string().regex(/^([01]?\d|2[0-3]):[0-5]\d-([01]?\d|2[0-3]):[0-5]\d$/, 'quiet_hours is HH:MM-HH:MM, e.g. 22:00-07:00').optional(),
    /** The built-in tools the Internal Dialog may use; absent = all of them (lib/agent/tool-registry.ts). */
    tools: z.array(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/)).max(100).optional(),
    /** The MCP servers whose tools it may use; absent = every server left on in Settings. */
    mcp_servers: z.array(z.string().min(1).max(64)).max(32).optional(),
  })
  .strict();
export type SessionParams = z.infer<typeof sessionParamsSchema>;

// The CLI's own aliases always name its current models, so these defaults never go stale.
export const defaultModels: ModelsConfig = {
  c_model: { backend: 'claude_code_cli', model: defaultModelIds.claude_code_cli!.c_model, max_tokens: 4096, cli_path: 'claude' },
  s_model: { backend: 'claude_code_cli', model: defaultModelIds.claude_code_cli!.s_model, max_tokens: 2048, cli_path: 'claude' },
};

export const defaultParams: SessionParams = {
  summary_every_n: 10,
  pacing: 'adaptive',
  trigger_mode: 'tag',
  trigger_threshold: 200,
  spontaneous_cap: 3,
};

/** What a browser may see of a layer's configuration: each key (its fallbacks' too) replaced by a hint. */
export interface PublicFallbackModelConfig extends Omit<FallbackModelConfig, 'api_key'> {
  api_key_set: boolean;
  api_key_hint?: string;
}
export interface PublicLayerModelConfig extends Omit<LayerModelConfig, 'api_key' | 'fallbacks'> {
  api_key_set: boolean;
  api_key_hint?: string;
  fallbacks?: PublicFallbackModelConfig[];
}

function withoutKey<T extends { api_key?: string }>(config: T): Omit<T, 'api_key'> & { api_key_set: boolean; api_key_hint?: string } {
  const { api_key: apiKey, ...rest } = config;
  if (!apiKey) return { ...rest, api_key_set: false };
  return { ...rest, api_key_set: true, api_key_hint: `…${apiKey.slice(-4)}` };
}

export function toPublicLayerConfig(config: LayerModelConfig): PublicLayerModelConfig {
  const { fallbacks, ...layer } = config;
  return { ...withoutKey(layer), ...(fallbacks && { fallbacks: fallbacks.map(withoutKey) }) };
}

export function toPublicModels(models: ModelsConfig) {
  return { c_model: toPublicLayerConfig(models.c_model), s_model: toPublicLayerConfig(models.s_model) };
}

/**
 * Merges a submitted layer config with the stored one: a missing api_key keeps the stored key
 * (the browser never had it), an empty string removes it; the same for each fallback's.
 */
export function mergeLayerConfig(submitted: LayerModelConfig, stored?: LayerModelConfig): LayerModelConfig {
  const { fallbacks, ...layer } = submitted;
  const merged = mergeKey(layer, stored);
  // Absent fallbacks keep the stored ones; an empty list clears them. A fallback keeps the stored
  // key of the one at its place, under the same scope rule.
  if (!fallbacks) return stored?.fallbacks?.length ? { ...merged, fallbacks: stored.fallbacks } : merged;
  return fallbacks.length > 0 ? { ...merged, fallbacks: fallbacks.map((fallback, index) => mergeKey(fallback, stored?.fallbacks?.[index])) } : merged;
}

function mergeKey<T extends FallbackModelConfig>(submitted: T, stored?: FallbackModelConfig): T {
  if (submitted.api_key === undefined) {
    // Keep a stored key only for the same backend and the same endpoint (origin) it was saved
    // with: a caller choosing the endpoint must not be able to borrow it (key-scope.ts).
    const keep = stored?.api_key && stored.backend === submitted.backend && sameKeyScope(stored.endpoint, submitted.endpoint) ? stored.api_key : undefined;
    return keep ? { ...submitted, api_key: keep } : submitted;
  }
  if (submitted.api_key === '') {
    const { api_key: _removed, ...rest } = submitted;
    return rest as T;
  }
  return submitted;
}

/** Both layers merged: an absent layer keeps the stored one; a present one merges its key. */
export function mergeModels(submitted: Partial<ModelsConfig>, stored: ModelsConfig): ModelsConfig {
  return {
    c_model: submitted.c_model ? mergeLayerConfig(submitted.c_model, stored.c_model) : stored.c_model,
    s_model: submitted.s_model ? mergeLayerConfig(submitted.s_model, stored.s_model) : stored.s_model,
  };
}
