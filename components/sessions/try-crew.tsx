'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { apiFetch } from '@/components/api-client';
import type { SessionJson } from './session-types';
import { errorText } from '@/lib/errors/error-text';

/** "Try the crew": seed 001's crew in one click — the lead, its researcher and reviewer, and a first task. */
export function TryCrew() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function start() {
    setBusy(true);
    setError(null);
    try {
      const answer = await apiFetch<{ session: SessionJson }>('/api/crew', { method: 'POST', body: {} });
      router.push(`/sessions/${answer.session.id}`);
    } catch (caught) {
      setError(errorText(caught));
      setBusy(false);
    }
  }

  return (
    <section aria-label="Try the crew" className="flex flex-wrap items-center gap-3 rounded-lg border border-indigo-200 bg-indigo-50/50 p-3 text-sm dark:border-indigo-900 dark:bg-indigo-950/20">
      <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void start()}>
        {busy ? 'Starting the crew…' : 'Try the crew'}
      </button>
      <span className="text-zinc-600 dark:text-zinc-400">
        A general assistant with skills hands work to a researcher and a reviewer: it starts a session with a first task you can watch.
      </span>
      {error && (
        <p role="alert" className="w-full text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </section>
  );
}
