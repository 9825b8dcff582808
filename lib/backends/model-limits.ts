// Context windows (tokens) of known models; a layer's `context_window` setting overrides them.
import type { LayerModelConfig } from '@/lib/config/model-config';

const windows: [pattern: RegExp, tokens: number][] = [
  [/^claude-/i, 200_000],
  [/^(gpt-4o|gpt-4\.1|gpt-5|o[134])/i, 128_000],
  [/qwen(2\.5|3)/i, 32_768],
  [/llama-?3\.[123]/i, 131_072],
  [/mistral|mixtral/i, 32_768],
  [/gemma/i, 8_192],
];

/** Servers such as Ollama default to a small window unless told otherwise: assume one. */
export const unknownModelWindow = 8_192;

export function contextWindowFor(config: Pick<LayerModelConfig, 'model' | 'context_window'>): number {
  if (config.context_window) return config.context_window;
  const model = config.model.replace(/^.*\//, ''); // "library/qwen3:8b" → "qwen3:8b"
  return windows.find(([pattern]) => pattern.test(model))?.[1] ?? unknownModelWindow;
}
