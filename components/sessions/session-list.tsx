'use client';

import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { SessionJson, SessionListJson } from './session-types';
import { errorText } from '@/lib/errors/error-text';

const pageSize = 20;

function formatTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function StatusBadge({ status }: { status: string }) {
  const colours: Record<string, string> = {
    active: 'bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300',
    dormant: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
    paused: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
    closed: 'bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
  };
  return <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${colours[status] ?? colours.closed}`}>{status}</span>;
}

export function SessionList() {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<SessionListJson | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<SessionJson | null>(null);

  const load = useCallback(async () => {
    const params = new URLSearchParams({ page: String(page), page_size: String(pageSize) });
    if (query) params.set('search', query);
    try {
      setData(await apiFetch<SessionListJson>(`/api/sessions?${params}`));
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
  }, [page, query]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    const timer = setTimeout(() => {
      setPage(1);
      setQuery(search.trim());
    }, 250);
    return () => clearTimeout(timer);
  }, [search]);

  async function rename(event: React.FormEvent) {
    event.preventDefault();
    if (!renaming) return;
    try {
      await apiFetch(`/api/sessions/${renaming.id}`, { method: 'PATCH', body: { name: renaming.name } });
      setRenaming(null);
      await load();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function confirmDelete() {
    if (!deleting) return;
    const target = deleting;
    setDeleting(null);
    try {
      await apiFetch(`/api/sessions/${target.id}`, { method: 'DELETE' });
      await load();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  const pages = data ? Math.max(1, Math.ceil(data.total / pageSize)) : 1;

  return (
    <section aria-labelledby="sessions-heading" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="sessions-heading" className="font-semibold">
          Sessions {data && <span className="text-sm font-normal text-zinc-500">({data.total})</span>}
        </h2>
        <input
          type="search"
          aria-label="Search sessions"
          placeholder="Search by name or persona"
          className="field max-w-xs"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      <ErrorBanner message={error} />
      {data && data.sessions.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-500 dark:border-zinc-700">
          {query ? 'No session matches your search.' : 'No sessions yet. Create one above.'}
        </p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 text-xs uppercase text-zinc-500 dark:border-zinc-800">
              <tr>
                <th scope="col" className="px-3 py-2">Name</th>
                {/* At phone width the table fits the screen: the persona goes under the name, the dates go. */}
                <th scope="col" className="hidden px-3 py-2 sm:table-cell">Persona</th>
                <th scope="col" className="px-3 py-2">Status</th>
                <th scope="col" className="hidden px-3 py-2 lg:table-cell">Created</th>
                <th scope="col" className="hidden px-3 py-2 md:table-cell">Last activity</th>
                <th scope="col" className="px-3 py-2"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {data?.sessions.map((session) => (
                <tr key={session.id} className="border-b border-zinc-100 last:border-0 dark:border-zinc-800">
                  <td className="px-3 py-2">
                    {renaming?.id === session.id ? (
                      <form onSubmit={rename} className="flex gap-2">
                        <input
                          autoFocus
                          aria-label="New name"
                          className="field"
                          value={renaming.name}
                          maxLength={120}
                          onChange={(event) => setRenaming({ id: session.id, name: event.target.value })}
                        />
                        <button type="submit" className="btn btn-primary">Save</button>
                        <button type="button" className="btn" onClick={() => setRenaming(null)}>Cancel</button>
                      </form>
                    ) : (
                      <Link href={`/sessions/${session.id}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
                        {session.name}
                      </Link>
                    )}
                    <span className="block text-xs text-zinc-500 sm:hidden">{session.persona}</span>
                  </td>
                  <td className="hidden px-3 py-2 sm:table-cell">
                    {session.persona}
                    {session.parent_session_id && (
                      <span className="ml-2 rounded-full bg-indigo-100 px-2 py-0.5 text-xs text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300" title="Worked on a task another session delegated">
                        specialist
                      </span>
                    )}
                    {session.people?.some((person) => person.role !== 'owner') && (
                      <span className="block text-xs text-zinc-500" data-testid="session-row-people">
                        with {session.people.map((person) => (person.role === 'owner' ? 'you' : person.name)).join(', ')}
                      </span>
                    )}
                  </td>
                  <td className="px-3 py-2"><StatusBadge status={session.dormant ? 'dormant' : session.status} /></td>
                  <td className="hidden px-3 py-2 whitespace-nowrap lg:table-cell">{formatTime(session.created_at)}</td>
                  <td className="hidden px-3 py-2 whitespace-nowrap md:table-cell">{formatTime(session.last_activity_at)}</td>
                  <td className="px-3 py-2 text-right sm:whitespace-nowrap">
                    <button type="button" className="btn mb-1 mr-2 sm:mb-0" aria-label={`Rename ${session.name}`} onClick={() => setRenaming({ id: session.id, name: session.name })}>
                      Rename
                    </button>
                    <button type="button" className="btn" aria-label={`Delete ${session.name}`} onClick={() => setDeleting(session)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav aria-label="Pages" className="flex items-center gap-2 text-sm">
          <button type="button" className="btn" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
          <span>Page {page} of {pages}</span>
          <button type="button" className="btn" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </nav>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this session?"
        message={<>“{deleting?.name}” and its whole history and logs will be deleted. This cannot be undone.</>}
        confirmLabel="Delete session"
        danger
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </section>
  );
}
