'use client';

import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { useUnsavedChanges } from '@/components/ui/unsaved-changes';
import type { ConsolidationConfig } from '@/lib/memory/memory-settings';
import { errorText } from '@/lib/errors/error-text';

interface MemorySettingsJson {
  settings: {
    embeddings: { endpoint: string; model: string; api_key_set: boolean; api_key_hint?: string } | null;
    builtin_embedder: boolean;
    consolidation: ConsolidationConfig;
  };
  indexer: { model: string | null; indexed: number; lastError: string | null; vectors: number };
}

/** Settings › Memory: the optional embeddings endpoint (hybrid recall) and the consolidation caps. */
export function MemorySettings() {
  const [loaded, setLoaded] = useState<MemorySettingsJson | null>(null);
  // Recall by meaning: off, the model inside the app, or an endpoint.
  const [meaning, setMeaning] = useState<'off' | 'builtin' | 'endpoint'>('off');
  const useEmbeddings = meaning === 'endpoint';
  const [endpoint, setEndpoint] = useState('http://127.0.0.1:11434/v1');
  const [model, setModel] = useState('nomic-embed-text');
  const [apiKey, setApiKey] = useState('');
  const [consolidation, setConsolidation] = useState<ConsolidationConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Any edit after the stored settings arrived, until saved.
  const [dirty, setDirty] = useState(false);
  useUnsavedChanges('settings-memory', dirty);

  function apply(json: MemorySettingsJson) {
    setLoaded(json);
    setConsolidation(json.settings.consolidation);
    setMeaning(json.settings.embeddings ? 'endpoint' : json.settings.builtin_embedder ? 'builtin' : 'off');
    if (json.settings.embeddings) {
      setEndpoint(json.settings.embeddings.endpoint);
      setModel(json.settings.embeddings.model);
    }
    setApiKey('');
    setDirty(false);
  }

  useEffect(() => {
    apiFetch<MemorySettingsJson>('/api/memory-settings').then(apply, (caught: Error) => setError(caught.message));
  }, []);

  const embeddings = () => ({ endpoint, model, ...(apiKey ? { api_key: apiKey } : {}) });

  async function save() {
    if (!consolidation) return;
    setBusy(true);
    try {
      apply(await apiFetch<MemorySettingsJson>('/api/memory-settings', { method: 'PUT', body: { embeddings: useEmbeddings ? embeddings() : null, builtin_embedder: meaning === 'builtin', consolidation } }));
      setNotice('Saved.');
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  async function test() {
    setBusy(true);
    try {
      const answer = await apiFetch<{ ok: boolean; dims?: number; error?: string }>('/api/memory-settings/test', { method: 'POST', body: meaning === 'builtin' ? { builtin: true } : { embeddings: embeddings() } });
      setNotice(answer.ok ? `Works: ${answer.dims}-dimensional vectors.` : `Does not work: ${answer.error}`);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  const number = (key: keyof Omit<ConsolidationConfig, 'enabled'>, label: string, step: string) => (
    <label className="flex flex-col text-sm">
      {label}
      <input
        type="number"
        className="field"
        step={step}
        min={0}
        value={consolidation?.[key] ?? ''}
        onChange={(event) => consolidation && setConsolidation({ ...consolidation, [key]: Number(event.target.value) })}
      />
    </label>
  );

  return (
    <section aria-labelledby="memory-settings-heading" onChange={() => loaded && setDirty(true)} className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="memory-settings-heading" className="text-lg font-semibold">
        Memory
      </h2>
      <ErrorBanner message={error} />
      {/* Nothing to edit before the stored settings arrive: a late answer would undo the edits. */}
      {!loaded && !error && <p aria-busy="true">Loading…</p>}
      {loaded && (
      <fieldset className="space-y-2">
        <legend className="font-medium">Recall by meaning (optional)</legend>
        <p className="text-sm text-zinc-500">
          Recall searches words, with each turn&apos;s neighbours, who said it and the dates a question names — no model needed. It can search by meaning too: with the model built into the app
          (about 20 ms more per recall, ~100 MB of memory; on LoCoMo it adds one point of recall@10 and none at @5, so it is off by default) or with an OpenAI-compatible embeddings endpoint, for example Ollama after{' '}
          <code>ollama pull nomic-embed-text</code>.
        </p>
        <div role="radiogroup" aria-label="Recall by meaning" className="flex flex-wrap gap-4 text-sm">
          {(
            [
              ['off', 'Words only'],
              ['builtin', 'Built-in model (runs here)'],
              ['endpoint', 'An embeddings endpoint'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2">
              <input type="radio" name="recall-by-meaning" value={value} checked={meaning === value} onChange={() => setMeaning(value)} /> {label}
            </label>
          ))}
        </div>
        {useEmbeddings && (
          <div className="grid gap-2 sm:grid-cols-3">
            <label className="flex flex-col text-sm">
              Endpoint
              <input className="field" value={endpoint} onChange={(event) => setEndpoint(event.target.value)} />
            </label>
            <label className="flex flex-col text-sm">
              Model
              <input className="field" value={model} onChange={(event) => setModel(event.target.value)} />
            </label>
            <label className="flex flex-col text-sm">
              API key {loaded?.settings.embeddings?.api_key_set ? `(set, ${loaded.settings.embeddings.api_key_hint})` : '(if the server needs one)'}
              <input className="field" type="password" autoComplete="off" value={apiKey} onChange={(event) => setApiKey(event.target.value)} />
            </label>
          </div>
        )}
        {loaded?.indexer.model && (
          <p className="text-xs text-zinc-500" role="status">
            {loaded.indexer.vectors} items embedded with {loaded.indexer.model}
            {loaded.indexer.lastError ? ` · last error: ${loaded.indexer.lastError}` : ''}
          </p>
        )}
      </fieldset>
      )}
      {consolidation && (
        <fieldset className="space-y-2">
          <legend className="font-medium">Consolidation while you are away</legend>
          <p className="text-sm text-zinc-500">When a session rests, its Subconscious turns new conversation into facts (with their sources) and marks facts that changed. Never while you chat; your next message cancels it.</p>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={consolidation.enabled} onChange={(event) => setConsolidation({ ...consolidation, enabled: event.target.checked })} /> Consolidate
          </label>
          <div className="grid gap-2 sm:grid-cols-3">
            {number('calls_per_hour', 'Calls per hour (all sessions)', '1')}
            {number('usd_per_hour', 'Dollars per hour (all sessions)', '0.01')}
            {number('min_new_messages', 'New messages to wait for', '1')}
          </div>
        </fieldset>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className="btn btn-primary" disabled={busy || !consolidation} onClick={() => void save()}>
          Save memory settings
        </button>
        {meaning !== 'off' && (
          <button type="button" className="btn" disabled={busy} onClick={() => void test()}>
            Test embeddings
          </button>
        )}
        {notice && (
          <span role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
            {notice}
          </span>
        )}
      </div>
    </section>
  );
}
