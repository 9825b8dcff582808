'use client';

import { LayerModelFields } from './layer-model-fields';
import type { LayerFormValue } from './layer-form-value';
import { MAX_FALLBACKS } from '@/lib/config/model-config';

/** A new fallback: the layer's own model on another backend is the usual one, so it starts from the API. */
const blankFallback = (): LayerFormValue => ({
  backend: 'anthropic',
  model: '',
  max_tokens: '2048',
  context_window: '',
  endpoint: '',
  cli_path: '',
  api_key: '',
  clear_key: false,
  api_key_set: false,
  key_endpoint: '',
  fallbacks: [],
});

/**
 * A layer's model and, under it, the ones it falls back to in order (issue 78 §2): a call its model
 * cannot serve now (a rate limit past its retries, an outage, a quota, a server that is down) goes to
 * the next before the reply has spoken, and the first is asked again after a cool-down.
 */
export function LayerWithFallbacks(props: Parameters<typeof LayerModelFields>[0]) {
  const { id, value } = props;
  const setFallbacks = (fallbacks: LayerFormValue[]) => props.onChange({ ...value, fallbacks });
  return (
    <div className="space-y-2">
      <LayerModelFields id={id} legend={props.legend} description={props.description} value={value} onChange={props.onChange} storedKeyOf={props.storedKeyOf} />
      <div className="space-y-2 pl-4" role="group" aria-label={`Fallbacks of the ${props.legend}`}>
        {value.fallbacks.map((fallback, index) => (
          <div key={index} className="space-y-1">
            <LayerModelFields
              id={`${id}-fallback-${index + 1}`}
              legend={`Fallback ${index + 1} of the ${props.legend}`}
              description={index === 0 ? 'Asked when the model above cannot serve a call now, before the reply has spoken.' : 'Asked when the fallback above cannot serve it either.'}
              value={fallback}
              onChange={(changed) => setFallbacks(value.fallbacks.map((other, at) => (at === index ? changed : other)))}
            />
            <button type="button" className="btn text-xs" onClick={() => setFallbacks(value.fallbacks.filter((_, at) => at !== index))}>
              Remove fallback {index + 1}
            </button>
          </div>
        ))}
        {value.fallbacks.length < MAX_FALLBACKS && (
          <button type="button" className="btn text-xs" onClick={() => setFallbacks([...value.fallbacks, blankFallback()])}>
            + Add a fallback{value.fallbacks.length === 0 ? ' (another backend, if this one is down or out of quota)' : ''}
          </button>
        )}
      </div>
    </div>
  );
}
