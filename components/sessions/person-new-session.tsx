'use client';

// A signed-in person starts a session of their own (issue 61 §3) with a persona they may use, on
// the owner's default models.
import { useCallback, useEffect, useState } from 'react';
import { useRouter } from 'next/navigation';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { PersonaSummaryJson, SessionJson } from './session-types';
import { AskForPersona } from './ask-for-persona';
import { PersonaSelect } from './persona-select';

export function PersonNewSession() {
  const router = useRouter();
  const [personas, setPersonas] = useState<PersonaSummaryJson[] | null>(null);
  const [persona, setPersona] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const load = useCallback(() => {
    apiFetch<{ personas: PersonaSummaryJson[] }>('/api/personas').then(
      (list) => {
        setPersonas(list.personas);
        setPersona((chosen) => chosen || (list.personas[0]?.name ?? ''));
      },
      (caught: Error) => setError(caught.message),
    );
  }, []);
  useEffect(load, [load]);
  // A guest the owner has given no persona yet: who to ask, and asking, rather than an empty form (issue 75 §4).
  if (personas?.length === 0) return <AskForPersona onGiven={load} />;
  return (
    <form
      aria-label="New session"
      className="flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900"
      onSubmit={(event) => {
        event.preventDefault();
        setCreating(true);
        apiFetch<{ session: SessionJson }>('/api/sessions', { method: 'POST', body: { persona } }).then(
          (result) => router.push(`/sessions/${result.session.id}`),
          (caught: Error) => {
            setError(caught.message);
            setCreating(false);
          },
        );
      }}
    >
      <PersonaSelect label="Talk to" personas={personas} value={persona} onChange={setPersona} />
      <button type="submit" disabled={creating || !persona} className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-800 disabled:opacity-60">
        Start a session
      </button>
      <ErrorBanner message={error} />
    </form>
  );
}
