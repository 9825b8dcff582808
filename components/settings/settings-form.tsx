'use client';

import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { useSave } from '@/components/ui/use-save';
import { useUnsavedChanges } from '@/components/ui/unsaved-changes';
import { LayerWithFallbacks } from './fallback-fields';
import { toLayerFormValue, toLayerPayload, type LayerFormValue } from './layer-form-value';
import { ParamsFields, toParamsFormValue, toParamsPayload, type ParamsFormValue } from './params-fields';
import type { SettingsJson } from './settings-types';

interface FormState {
  c_model: LayerFormValue;
  s_model: LayerFormValue;
  params: ParamsFormValue;
}

function toFormState(settings: SettingsJson): FormState {
  return { c_model: toLayerFormValue(settings.c_model), s_model: toLayerFormValue(settings.s_model), params: toParamsFormValue(settings.params) };
}

export function SettingsForm() {
  const [form, setForm] = useState<FormState | null>(null);
  const { saving, saved, dirty, error, setError, run, changed } = useSave();
  useUnsavedChanges('settings-models', dirty);

  useEffect(() => {
    apiFetch<{ settings: SettingsJson }>('/api/settings')
      .then((result) => setForm(toFormState(result.settings)))
      .catch((caught: Error) => setError(caught.message));
  }, [setError]);

  if (!form) return error ? <ErrorBanner message={error} /> : <p aria-busy="true">Loading settings…</p>;

  const update = (patch: Partial<FormState>) => {
    changed();
    setForm({ ...form, ...patch });
  };

  function save(event: React.FormEvent) {
    event.preventDefault();
    if (!form) return;
    void run(async () => {
      const result = await apiFetch<{ settings: SettingsJson }>('/api/settings', {
        method: 'PUT',
        body: { c_model: toLayerPayload(form.c_model), s_model: toLayerPayload(form.s_model), params: toParamsPayload(form.params) },
      });
      setForm(toFormState(result.settings));
    });
  }

  return (
    <form onSubmit={save} className="space-y-5" aria-label="Default settings">
      <LayerWithFallbacks
        id="c-model"
        legend="Internal Dialog (C_model)"
        description="The strong model that answers the user and keeps private thoughts."
        value={form.c_model}
        storedKeyOf="c_model"
        onChange={(c_model) => update({ c_model })}
      />
      <LayerWithFallbacks
        id="s-model"
        legend="Subconscious (S_model)"
        description="The cheap model that runs in a perpetual loop and sets mood and criteria."
        value={form.s_model}
        storedKeyOf="s_model"
        onChange={(s_model) => update({ s_model })}
      />
      <ParamsFields value={form.params} onChange={(params) => update({ params })} />
      <ErrorBanner message={error} />
      <div className="flex items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save settings'}
        </button>
        {saved && (
          <span role="status" className="text-sm text-green-700 dark:text-green-400">
            Settings saved
          </span>
        )}
      </div>
    </form>
  );
}
