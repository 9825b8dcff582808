'use client';

import { useEffect, useState } from 'react';
import { useRouter } from 'next/navigation';
import { apiFetch } from '@/components/api-client';
import { LayerWithFallbacks } from '@/components/settings/fallback-fields';
import { toLayerFormValue, toLayerPayload, type LayerFormValue } from '@/components/settings/layer-form-value';
import type { SettingsJson } from '@/components/settings/settings-types';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { PersonaSummaryJson, SessionJson } from './session-types';
import { PersonaSelect } from './persona-select';
import { errorText } from '@/lib/errors/error-text';

export function NewSessionForm() {
  const router = useRouter();
  const [personas, setPersonas] = useState<PersonaSummaryJson[] | null>(null);
  const [name, setName] = useState('');
  const [persona, setPersona] = useState('');
  const [models, setModels] = useState<{ c_model: LayerFormValue; s_model: LayerFormValue } | null>(null);
  const [showModels, setShowModels] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    Promise.all([apiFetch<{ personas: PersonaSummaryJson[] }>('/api/personas'), apiFetch<{ settings: SettingsJson }>('/api/settings')])
      .then(([personaList, settings]) => {
        setPersonas(personaList.personas);
        setPersona((current) => current || personaList.personas[0]?.name || '');
        setModels({ c_model: toLayerFormValue(settings.settings.c_model), s_model: toLayerFormValue(settings.settings.s_model) });
      })
      .catch((caught: Error) => setError(caught.message));
  }, []);

  async function create(event: React.FormEvent) {
    event.preventDefault();
    if (!models) return;
    setCreating(true);
    setError(null);
    try {
      const result = await apiFetch<{ session: SessionJson }>('/api/sessions', {
        method: 'POST',
        body: {
          ...(name.trim() && { name: name.trim() }),
          persona,
          ...(showModels && { models: { c_model: toLayerPayload(models.c_model), s_model: toLayerPayload(models.s_model) } }),
        },
      });
      router.push(`/sessions/${result.session.id}`);
    } catch (caught) {
      setError(errorText(caught));
      setCreating(false);
    }
  }

  return (
    <form onSubmit={create} aria-label="New session" className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
      <h2 className="font-semibold">New session</h2>
      <div className="grid gap-3 sm:grid-cols-2">
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Session name (optional)</span>
          <input className="field" value={name} maxLength={120} onChange={(event) => setName(event.target.value)} placeholder="e.g. Evening chat" />
        </label>
        <PersonaSelect label="Persona" personas={personas} value={persona} onChange={setPersona} emptyText="No personas: create one first" />
      </div>
      <button type="button" className="block text-sm text-indigo-700 underline dark:text-indigo-300" aria-expanded={showModels} onClick={() => setShowModels(!showModels)}>
        {showModels ? 'Use the default models' : 'Choose models for this session'}
      </button>
      {showModels && models && (
        <div className="grid gap-3 lg:grid-cols-2">
          <LayerWithFallbacks id="new-c-model" legend="Internal Dialog (C_model)" description="Prefilled from Settings." value={models.c_model} onChange={(c_model) => setModels({ ...models, c_model })} />
          <LayerWithFallbacks id="new-s-model" legend="Subconscious (S_model)" description="Prefilled from Settings." value={models.s_model} onChange={(s_model) => setModels({ ...models, s_model })} />
        </div>
      )}
      <ErrorBanner message={error} />
      <button type="submit" className="btn btn-primary" disabled={creating || !persona || !models}>
        {creating ? 'Creating…' : 'Create session'}
      </button>
    </form>
  );
}
