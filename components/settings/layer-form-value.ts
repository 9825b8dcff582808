// A layer's model settings as the form holds them (strings while typed), and the payload the API
// takes: shared by the fields and the connection check beside them.
import type { BackendKind } from '@/lib/config/model-catalog';
import type { PublicFallbackModelConfig, PublicLayerModelConfig } from '@/lib/config/model-config';

export interface LayerFormValue {
  backend: BackendKind;
  model: string;
  max_tokens: string;
  /** Empty: the model's known default. */
  context_window: string;
  endpoint: string;
  cli_path: string;
  /** A newly typed key; empty means "keep the stored one". */
  api_key: string;
  clear_key: boolean;
  api_key_set: boolean;
  api_key_hint?: string;
  /** The endpoint the stored key was saved with: it goes nowhere else (lib/config/key-scope.ts). */
  key_endpoint: string;
  /** The models tried in order when this one cannot serve a call (issue 78 §2); a fallback has none of its own. */
  fallbacks: LayerFormValue[];
}

export function toLayerFormValue(config: PublicLayerModelConfig | PublicFallbackModelConfig): LayerFormValue {
  return {
    backend: config.backend,
    model: config.model,
    max_tokens: String(config.max_tokens),
    context_window: config.context_window ? String(config.context_window) : '',
    endpoint: config.endpoint ?? '',
    cli_path: config.cli_path ?? '',
    api_key: '',
    clear_key: false,
    api_key_set: config.api_key_set,
    api_key_hint: config.api_key_hint,
    key_endpoint: config.endpoint ?? '',
    fallbacks: 'fallbacks' in config && config.fallbacks ? config.fallbacks.map(toLayerFormValue) : [],
  };
}

/** The API payload: the key is sent only when typed, or as "" to clear it; the fallbacks always (none clears them). */
export function toLayerPayload(value: LayerFormValue) {
  return { ...toModelPayload(value), fallbacks: value.fallbacks.map(toModelPayload) };
}

/** One model's payload (a layer's own fields, or a fallback's). */
export function toModelPayload(value: LayerFormValue) {
  return {
    backend: value.backend,
    model: value.model.trim(),
    max_tokens: Number(value.max_tokens),
    ...(value.context_window.trim() && { context_window: Number(value.context_window) }),
    ...(value.endpoint.trim() && value.backend !== 'claude_code_cli' && { endpoint: value.endpoint.trim() }),
    ...(value.backend === 'claude_code_cli' && value.cli_path.trim() && { cli_path: value.cli_path.trim() }),
    ...(value.api_key ? { api_key: value.api_key } : value.clear_key ? { api_key: '' } : {}),
  };
}
