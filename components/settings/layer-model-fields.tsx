'use client';

import { useState } from 'react';
import { ConnectionCheck } from './connection-check';
import { cliModelListing, deprecationOf, type ModelListing } from '@/lib/config/model-catalog';
import type { LayerFormValue } from './layer-form-value';
import { endpointOrigin, sameKeyScope } from '@/lib/config/key-scope';
import { backendKinds, type BackendKind } from '@/lib/config/model-catalog';

const backendLabels: Record<BackendKind, string> = {
  claude_code_cli: 'Claude Code CLI',
  anthropic: 'Anthropic API',
  openai_compatible: 'OpenAI-compatible (Ollama, LM Studio, vLLM)',
};

/**
 * A new backend for the layer (issue 75 §9): a Claude model's name means nothing to an
 * OpenAI-compatible server, so it is cleared there (the field asks for one) instead of kept.
 */
function switchedBackend(value: LayerFormValue, backend: BackendKind): Partial<LayerFormValue> {
  const claudeName = /^(sonnet|opus|haiku)$|^claude-/i.test(value.model.trim());
  return backend === 'openai_compatible' && value.backend !== 'openai_compatible' && claudeName ? { backend, model: '' } : { backend };
}

export function LayerModelFields(props: {
  id: string;
  legend: string;
  description: string;
  value: LayerFormValue;
  onChange: (value: LayerFormValue) => void;
  /** Which saved layer's key "Test connection" may use when none is typed. */
  storedKeyOf?: 'c_model' | 's_model';
}) {
  const { id, value } = props;
  const [fetched, setFetched] = useState<{ backend: BackendKind; models: ModelListing[] } | null>(null);
  const set = (patch: Partial<LayerFormValue>) => props.onChange({ ...value, ...patch });
  // The CLI's list is known without asking; a server's list comes from "Fetch models".
  const models = fetched?.backend === value.backend ? fetched.models : value.backend === 'claude_code_cli' ? cliModelListing() : [];
  const listed = models.find((model) => model.id === value.model.trim());
  const endOfLife = listed?.end_of_life ?? deprecationOf(value.model.trim())?.endOfLife;
  return (
    <fieldset className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <legend className="px-1 font-semibold">{props.legend}</legend>
      <p className="text-xs text-zinc-500">{props.description}</p>
      <div className="grid gap-3 sm:grid-cols-2">
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Backend</span>
          <select id={`${id}-backend`} className="field" value={value.backend} onChange={(event) => set(switchedBackend(value, event.target.value as BackendKind))}>
            {backendKinds.map((kind) => (
              <option key={kind} value={kind}>
                {backendLabels[kind]}
              </option>
            ))}
          </select>
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Model</span>
          <input
            id={`${id}-model`}
            className="field"
            list={`${id}-models`}
            value={value.model}
            onChange={(event) => set({ model: event.target.value })}
            placeholder={value.backend === 'openai_compatible' ? 'Fetch models, or type one (e.g. llama3.2)' : undefined}
            required
          />
          <datalist id={`${id}-models`}>
            {models.map((model) => (
              <option key={model.id} value={model.id} label={[model.label, model.end_of_life && `deprecated, ends ${model.end_of_life}`].filter(Boolean).join(' · ') || undefined} />
            ))}
          </datalist>
          {endOfLife && (
            <span id={`${id}-model-deprecated`} role="note" className="mt-1 block text-xs text-amber-700 dark:text-amber-300">
              Deprecated: this model reaches its end of life on {endOfLife}. Pick a current one{value.backend === 'claude_code_cli' ? ' (the alias sonnet or haiku never goes stale)' : ''}.
            </span>
          )}
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Max tokens</span>
          <input
            id={`${id}-max-tokens`}
            className="field"
            type="number"
            min={1}
            value={value.max_tokens}
            onChange={(event) => set({ max_tokens: event.target.value })}
            required
          />
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Context window (tokens)</span>
          <input
            id={`${id}-context-window`}
            className="field"
            type="number"
            min={1024}
            placeholder="the model's known default"
            value={value.context_window}
            onChange={(event) => set({ context_window: event.target.value })}
          />
        </label>
        {value.backend === 'claude_code_cli' ? (
          <label className="block text-sm">
            <span className="mb-1 block font-medium">CLI path</span>
            <input
              id={`${id}-cli-path`}
              className="field"
              placeholder="claude"
              value={value.cli_path}
              onChange={(event) => set({ cli_path: event.target.value })}
            />
          </label>
        ) : (
          <label className="block text-sm">
            <span className="mb-1 block font-medium">{value.backend === 'anthropic' ? 'API base URL (optional)' : 'Endpoint'}</span>
            <input
              id={`${id}-endpoint`}
              className="field"
              placeholder={value.backend === 'anthropic' ? 'https://api.anthropic.com' : 'http://localhost:11434/v1'}
              value={value.endpoint}
              onChange={(event) => set({ endpoint: event.target.value })}
            />
          </label>
        )}
        {value.backend !== 'claude_code_cli' && (
          <label className="block text-sm sm:col-span-2">
            <span className="mb-1 block font-medium">API key</span>
            <input
              id={`${id}-api-key`}
              className="field"
              type="password"
              autoComplete="off"
              placeholder={value.api_key_set ? `stored (${value.api_key_hint ?? 'hidden'}) — type to replace` : value.backend === 'anthropic' ? 'or set ANTHROPIC_API_KEY' : 'optional for local servers'}
              value={value.api_key}
              onChange={(event) => set({ api_key: event.target.value, clear_key: false })}
            />
            {value.api_key_set && !value.api_key && !value.clear_key && !sameKeyScope(value.key_endpoint || undefined, value.endpoint.trim() || undefined) && (
              <span role="status" className="mt-1 block text-xs text-amber-700">
                The stored key stays with {endpointOrigin(value.key_endpoint) ?? 'the provider’s own endpoint'}: type it again to use it with this endpoint.
              </span>
            )}
            {value.api_key_set && (
              <span className="mt-1 flex items-center gap-2 text-xs">
                <input
                  id={`${id}-clear-key`}
                  type="checkbox"
                  checked={value.clear_key}
                  onChange={(event) => set({ clear_key: event.target.checked, api_key: '' })}
                />
                <label htmlFor={`${id}-clear-key`}>Remove the stored key</label>
              </span>
            )}
          </label>
        )}
      </div>
      <ConnectionCheck id={id} value={value} storedKeyOf={props.storedKeyOf} onModels={(listing) => setFetched({ backend: value.backend, models: listing })} />
    </fieldset>
  );
}
