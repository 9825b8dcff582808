'use client';

import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { StatusBadge } from '@/components/sessions/session-list';
import type { SessionJson } from '@/components/sessions/session-types';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { OrchestratorEvent } from '@/lib/orchestrator/events';
import { useSessionSocket, type ConnectionState } from './use-session-socket';

function ConnectionIndicator({ state }: { state: ConnectionState }) {
  const colour = state === 'connected' ? 'bg-green-500' : state === 'connecting' ? 'bg-amber-500' : 'bg-red-500';
  return (
    <span role="status" aria-live="polite" className="flex items-center gap-1.5 text-xs text-zinc-500">
      <span aria-hidden className={`h-2 w-2 rounded-full ${colour}`} />
      {state === 'connected' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Disconnected — reconnecting'}
    </span>
  );
}

function Panel(props: { title: string; subtitle: string; labelledBy: string; children: React.ReactNode; footer?: React.ReactNode }) {
  return (
    <section
      aria-labelledby={props.labelledBy}
      className="flex min-h-[60vh] flex-col rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
    >
      <header className="border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <h2 id={props.labelledBy} className="font-semibold">
          {props.title}
        </h2>
        <p className="text-xs text-zinc-500">{props.subtitle}</p>
      </header>
      <div className="flex-1 overflow-y-auto p-4 text-sm">{props.children}</div>
      {props.footer}
    </section>
  );
}

export function SessionView({ sessionId }: { sessionId: string }) {
  const [session, setSession] = useState<SessionJson | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const result = await apiFetch<{ session: SessionJson }>(`/api/sessions/${sessionId}`);
      setSession(result.session);
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    }
  }, [sessionId]);

  useEffect(() => {
    void load();
  }, [load]);

  const onEvent = useCallback((event: OrchestratorEvent) => {
    switch (event.type) {
      case 'session-status':
        setSession((current) => (current ? { ...current, status: event.status } : current));
        break;
      case 'session-updated':
        setSession((current) => (current ? { ...current, name: event.name } : current));
        break;
      case 'session-deleted':
        setError('This session was deleted.');
        setSession(null);
        break;
    }
  }, []);

  const connection = useSessionSocket({ sessionId, onEvent, onResync: () => void load() });

  async function toggle() {
    if (!session) return;
    setBusy(true);
    try {
      const action = session.status === 'active' ? 'pause' : 'resume';
      const result = await apiFetch<{ session: SessionJson }>(`/api/sessions/${sessionId}/${action}`, { method: 'POST' });
      setSession(result.session);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  }

  if (!session) return error ? <ErrorBanner message={error} /> : <p aria-busy="true">Loading session…</p>;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <Link href="/" className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← Sessions
        </Link>
        <h1 className="text-2xl font-semibold">{session.name}</h1>
        <StatusBadge status={session.status} />
        <span className="text-xs text-zinc-500">persona: {session.persona}</span>
        <div className="ml-auto flex items-center gap-3">
          <ConnectionIndicator state={connection} />
          <button type="button" className="btn" disabled={busy || session.status === 'closed'} onClick={() => void toggle()}>
            {session.status === 'active' ? 'Pause' : 'Resume'}
          </button>
        </div>
      </div>
      <ErrorBanner message={error} />
      <dl className="flex flex-wrap gap-x-6 gap-y-1 text-xs text-zinc-500">
        <div>
          <dt className="inline">C_model: </dt>
          <dd className="inline">{session.models.c_model.backend} · {session.models.c_model.model}</dd>
        </div>
        <div>
          <dt className="inline">S_model: </dt>
          <dd className="inline">{session.models.s_model.backend} · {session.models.s_model.model}</dd>
        </div>
        <div>
          <dt className="inline">Pacing: </dt>
          <dd className="inline">{session.params.pacing}</dd>
        </div>
        <div>
          <dt className="inline">Summary every: </dt>
          <dd className="inline">{session.params.summary_every_n} cycles</dd>
        </div>
      </dl>
      <div className="grid gap-4 lg:grid-cols-3">
        <Panel title="External Dialog" subtitle="The conversation with the user" labelledBy="panel-external">
          <p className="text-zinc-500">No messages yet.</p>
        </Panel>
        <Panel title="Internal Dialog" subtitle="ID_loud (externalised) and ID_quiet (private)" labelledBy="panel-internal">
          <p className="text-zinc-500">No turns yet.</p>
        </Panel>
        <Panel title="Subconscious" subtitle="S_loud, S_quiet, mood and criteria per cycle" labelledBy="panel-subconscious">
          <p className="text-zinc-500">No cycles yet.</p>
        </Panel>
      </div>
    </div>
  );
}
