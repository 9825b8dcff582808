'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { ModelListing } from '@/lib/config/model-catalog';
import { toModelPayload, type LayerFormValue } from './layer-form-value';
import { errorText } from '@/lib/errors/error-text';

interface ConnectionReport {
  ok: boolean;
  latency_ms: number;
  warning?: string;
  error?: { kind: string; message: string; status?: number };
}

/** "Test connection" and "Fetch models" for one layer, using the stored key when none is typed. */
export function ConnectionCheck(props: { id: string; value: LayerFormValue; storedKeyOf?: 'c_model' | 's_model'; onModels: (models: ModelListing[]) => void }) {
  const [report, setReport] = useState<ConnectionReport | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const body = () => ({ config: toModelPayload(props.value), ...(props.storedKeyOf && !props.value.api_key && !props.value.clear_key && { use_stored_key_of: props.storedKeyOf }) });

  async function test() {
    setBusy(true);
    setReport(null);
    setNote(null);
    try {
      setReport(await apiFetch<ConnectionReport>('/api/backends/test', { method: 'POST', body: body() }));
    } catch (caught) {
      setNote(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  async function fetchModels() {
    setBusy(true);
    setNote(null);
    try {
      const result = await apiFetch<{ models: ModelListing[]; error?: { message: string } }>('/api/backends/models', { method: 'POST', body: body() });
      props.onModels(result.models);
      const deprecated = result.models.filter((model) => model.end_of_life).length;
      setNote(result.error ? `Could not list models: ${result.error.message}` : `${result.models.length} models available${deprecated ? ` (${deprecated} deprecated)` : ''}`);
    } catch (caught) {
      setNote(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <button type="button" className="btn" disabled={busy} onClick={() => void test()}>
        Test connection
      </button>
      <button type="button" className="btn" disabled={busy} onClick={() => void fetchModels()}>
        Fetch models
      </button>
      <span role="status" aria-live="polite" id={`${props.id}-connection`}>
        {busy && 'Checking…'}
        {report?.ok && !report.warning && <span className="text-green-700 dark:text-green-400">Connected in {report.latency_ms} ms</span>}
        {report?.ok && report.warning && (
          <span className="text-amber-800 dark:text-amber-300">
            Connected in {report.latency_ms} ms — {report.warning}
          </span>
        )}
        {report && !report.ok && (
          <span className="text-red-700 dark:text-red-400">
            Failed ({report.error?.kind}{report.error?.status ? ` ${report.error.status}` : ''}): {report.error?.message}
          </span>
        )}
        {note && <span className="text-zinc-600 dark:text-zinc-300">{note}</span>}
      </span>
    </div>
  );
}
