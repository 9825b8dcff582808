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

/** Models known to take images (issue 33): every Claude model of the last years, and the vision lines local servers offer. */
const seeing = /^claude-(3|haiku|sonnet|opus)|gpt-4o|gpt-4\.1|gpt-5|^o[34]\b|llava|vision|[-_.]vl\b|vl[-_:]|qwen2\.5vl|gemma-?3|minicpm-v|moondream|pixtral|mistral-small-?3\.[12]|llama-?4|internvl|smolvlm|granite.*vision/i;
/** Text-only lines: a message's images are described to them in words instead. */
const blind = /^claude-(2|instant)|gpt-oss|gpt-3\.5|deepseek|mixtral|codellama|phi-?[234]\b|qwen(2\.5|3)(-coder)?[:\-]?\d|llama-?3\.[0-3]|llama-?2|gemma-?2|tinyllama|smollm/i;

/** true: the model sees images; false: it is known not to; null: not known (they are sent, and a refusal is learnt). */
export function seesImages(config: Pick<LayerModelConfig, 'model' | 'backend'>): boolean | null {
  const model = config.model.replace(/^.*\//, '');
  if (config.backend !== 'openai_compatible') return !/^claude-(2|instant)/i.test(model);
  if (seeing.test(model)) return true;
  if (blind.test(model)) return false;
  return null;
}
