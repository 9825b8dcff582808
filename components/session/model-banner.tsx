'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { toLayerFormValue, toLayerPayload } from '@/components/settings/layer-form-value';
import type { SessionJson } from '@/lib/http/session-json';
import { modelNotices } from './model-notices';
import { errorText } from '@/lib/errors/error-text';

/** A banner per model that is deprecated or refused, with a one-click switch where one is clear. */
export function ModelBanner(props: {
  session: SessionJson;
  lastError: { layer: 'internal' | 'subconscious'; kind: string; message: string } | null;
  onSaved: (session: SessionJson) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const notices = modelNotices({ models: props.session.models, lastError: props.lastError });
  if (notices.length === 0) return null;

  async function switchTo(layer: 'c_model' | 's_model', model: string) {
    setBusy(true);
    setError(null);
    try {
      // The stored key stays: the payload carries none, so the server keeps it.
      const payload = { ...toLayerPayload(toLayerFormValue(props.session.models[layer])), model };
      const result = await apiFetch<{ session: SessionJson }>(`/api/sessions/${props.session.id}`, { method: 'PATCH', body: { models: { [layer]: payload } } });
      props.onSaved(result.session);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div role="alert" aria-label="Model notice" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
      {notices.map((notice) => (
        <p key={notice.layer} className="flex flex-wrap items-center gap-3">
          <span>{notice.message}</span>
          {notice.replacement ? (
            <button type="button" className="btn" disabled={busy} onClick={() => void switchTo(notice.layer, notice.replacement!)}>
              Switch to {notice.replacement}
            </button>
          ) : (
            <span>Choose another model in the session settings below.</span>
          )}
        </p>
      ))}
      {error && <p className="text-red-800 dark:text-red-300">{error}</p>}
    </div>
  );
}
