'use client';

import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { PersonaSummaryJson } from '@/components/sessions/session-types';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { MemoryJson } from '@/lib/memory/memory-store';
import { errorText } from '@/lib/errors/error-text';

const KINDS = ['fact', 'episode', 'task_summary', 'journal'] as const;
const kindLabels: Record<(typeof KINDS)[number], string> = { fact: 'Facts', episode: 'Episodes', task_summary: 'Task summaries', journal: 'Journal' };

interface RecallResult {
  kind: 'message' | 'memory';
  id: number;
  session_id: string | null;
  content: string;
  created_at: string;
  why: string;
}

/** One memory: its text (editable), where it came from, its history, pin and forget. */
/** A memory as the page lists it: with the people of the conversation it came from (issue 42). */
type ListedMemory = MemoryJson & { people?: { id: string; name: string }[] };

function MemoryItem(props: { memory: ListedMemory; readOnly: boolean; onChanged: () => void; onError: (message: string) => void }) {
  const { memory } = props;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memory.content);
  const [history, setHistory] = useState<MemoryJson[] | null>(null);
  const call = async (init: { method: string; body?: unknown }) => {
    try {
      await apiFetch(`/api/memories/${memory.id}`, init);
      props.onChanged();
    } catch (caught) {
      props.onError(errorText(caught));
    }
  };
  const showHistory = async () => {
    try {
      setHistory((await apiFetch<{ history: MemoryJson[] }>(`/api/memories/${memory.id}`)).history);
    } catch (caught) {
      props.onError(errorText(caught));
    }
  };
  return (
    <li aria-label={`Memory ${memory.id}`} className="space-y-1 rounded border border-zinc-200 p-2 text-sm dark:border-zinc-800">
      {editing ? (
        <form
          className="flex gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void call({ method: 'PATCH', body: { content: text } }).then(() => setEditing(false));
          }}
        >
          <input className="field" aria-label="Memory text" value={text} onChange={(event) => setText(event.target.value)} />
          <button type="submit" className="btn btn-primary">
            Save
          </button>
        </form>
      ) : (
        <p>
          {memory.pinned && <span className="mr-1 text-xs text-amber-700">📌</span>}
          {memory.content}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
        <span data-testid="memory-people">
          {memory.people?.length ? `from ${memory.people.map((person) => person.name).join(', ')}` : 'from no conversation'}
          {memory.shared ? ' · shared with everyone' : !memory.session_id ? ' · added here: read in every conversation' : ' · private to them'}
        </span>
        <span>
          #{memory.id} · {memory.scope}
          {memory.expires_at ? ` until ${new Date(memory.expires_at).toLocaleString()}` : ''} · {new Date(memory.created_at).toLocaleDateString()}
        </span>
        {memory.session_id && (
          <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={`/sessions/${memory.session_id}`}>
            from a session
          </Link>
        )}
        {memory.source_message_ids.length > 0 && <span>{memory.source_message_ids.length} source message(s)</span>}
        {!props.readOnly && (
        <span className="ml-auto flex gap-2">
          <button type="button" className="btn py-0 text-xs" onClick={() => void showHistory()}>
            History
          </button>
          <button type="button" className="btn py-0 text-xs" onClick={() => setEditing(!editing)}>
            Edit
          </button>
          <button type="button" className="btn py-0 text-xs" onClick={() => void call({ method: 'PATCH', body: { pinned: !memory.pinned } })}>
            {memory.pinned ? 'Unpin' : 'Pin'}
          </button>
          {memory.session_id && (
            <button type="button" className="btn py-0 text-xs" title="Shared: recalled in every conversation of the persona" onClick={() => void call({ method: 'PATCH', body: { shared: !memory.shared } })}>
              {memory.shared ? 'Make private' : 'Share with everyone'}
            </button>
          )}
          <button type="button" className="btn py-0 text-xs" onClick={() => void call({ method: 'DELETE' })}>
            Forget
          </button>
        </span>
        )}
      </div>
      {history && (
        <p className="text-xs text-zinc-500" aria-label="History">
          {history.length === 0 ? 'No earlier versions.' : `${history.map((item) => item.content).join(' → ')} → ${memory.content}`}
        </p>
      )}
    </li>
  );
}

/**
 * The Memory page: a persona, its memories by kind, search with the agent's own recall, add, edit,
 * pin, forget. `readOnly`: a signed-in person's view (issue 61) — the memories they may read, no more.
 */
export function MemoryBrowser({ readOnly = false }: { readOnly?: boolean }) {
  const [personas, setPersonas] = useState<string[]>([]);
  const [persona, setPersona] = useState('');
  const [memories, setMemories] = useState<ListedMemory[]>([]);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<RecallResult[] | null>(null);
  const [adding, setAdding] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    apiFetch<{ personas: PersonaSummaryJson[] }>('/api/personas')
      .then((body) => {
        const names = body.personas.map((item) => item.name);
        setPersonas(names);
        setPersona((current) => current || names[0] || '');
      })
      .catch((caught: Error) => setError(caught.message));
  }, []);

  const load = useCallback(async () => {
    if (!persona) return;
    try {
      setMemories((await apiFetch<{ memories: ListedMemory[] }>(`/api/memories?persona=${encodeURIComponent(persona)}`)).memories);
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
  }, [persona]);

  useEffect(() => {
    setResults(null);
    void load();
  }, [load]);

  async function search() {
    // Before the personas have loaded there is no one to search (issue 75 §9): said, not sent.
    if (!persona) {
      setError(personas.length === 0 ? 'The personas are still loading (or there are none yet): search once one is chosen above.' : 'Choose a persona first.');
      return;
    }
    try {
      setResults((await apiFetch<{ results: RecallResult[] }>(`/api/personas/${encodeURIComponent(persona)}/recall?q=${encodeURIComponent(query)}&k=20`)).results);
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function add() {
    try {
      await apiFetch('/api/memories', { method: 'POST', body: { persona, content: adding } });
      setAdding('');
      await load();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <div className="space-y-4">
      <ErrorBanner message={error} />
      <div className="flex flex-wrap items-end gap-3">
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Persona</span>
          <select className="field" value={persona} onChange={(event) => setPersona(event.target.value)}>
            {personas.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {!readOnly && (
        <form
          role="search"
          className="flex flex-1 items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (query.trim()) void search();
          }}
        >
          <label className="block flex-1 text-sm">
            <span className="mb-1 block font-medium">Search what it remembers</span>
            <input className="field" value={query} onChange={(event) => setQuery(event.target.value)} placeholder="e.g. the user's dog" />
          </label>
          <button type="submit" className="btn" disabled={!persona}>
            Search
          </button>
        </form>
        )}
      </div>
      {results && (
        <section aria-label="Search results" className="space-y-1">
          <h2 className="font-semibold">Results ({results.length})</h2>
          {results.length === 0 && <p className="text-sm text-zinc-500">Nothing matches.</p>}
          <ol className="space-y-1 text-sm">
            {results.map((result) => (
              <li key={`${result.kind}-${result.id}`} className="rounded border border-zinc-200 p-2 dark:border-zinc-800">
                <p>{result.content}</p>
                <p className="text-xs text-zinc-500">
                  {result.kind === 'memory' ? `memory #${result.id}` : 'said'} · {new Date(result.created_at).toLocaleDateString()} · {result.why}
                  {result.session_id && (
                    <>
                      {' · '}
                      <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={`/sessions/${result.session_id}`}>
                        session
                      </Link>
                    </>
                  )}
                </p>
              </li>
            ))}
          </ol>
        </section>
      )}
      {!readOnly && (
      <form
        className="flex gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (adding.trim()) void add();
        }}
      >
        <input className="field" aria-label="New memory" value={adding} onChange={(event) => setAdding(event.target.value)} placeholder="Add a fact every conversation of this persona reads (shared with everyone)" />
        <button type="submit" className="btn btn-primary" disabled={!persona || !adding.trim()}>
          Add
        </button>
      </form>
      )}
      {KINDS.map((kind) => {
        const ofKind = memories.filter((memory) => memory.kind === kind);
        return (
          <section key={kind} aria-label={kindLabels[kind]} className="space-y-1">
            <h2 className="font-semibold">
              {kindLabels[kind]} <span className="text-sm font-normal text-zinc-500">({ofKind.length})</span>
            </h2>
            {ofKind.length === 0 ? (
              <p className="text-sm text-zinc-500">None yet.</p>
            ) : (
              <ul className="space-y-1">
                {ofKind.map((memory) => (
                  <MemoryItem key={`${memory.id}-${memory.updated_at}`} memory={memory} readOnly={readOnly} onChanged={() => void load()} onError={setError} />
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </div>
  );
}
