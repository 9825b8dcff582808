'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ErrorBanner } from '@/components/ui/error-banner';
import { MarkdownView } from './markdown-view';
import { errorText } from '@/lib/errors/error-text';

interface PersonaJson {
  name: string;
  content: string;
  hash: string;
  updated_at: string;
}

export function PersonaEditor({ name }: { name: string }) {
  const router = useRouter();
  const [saved, setSaved] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const dirty = saved !== null && draft !== saved;

  useEffect(() => {
    apiFetch<{ persona: PersonaJson }>(`/api/personas/${encodeURIComponent(name)}`)
      .then((result) => {
        setSaved(result.persona.content);
        setDraft(result.persona.content);
      })
      .catch((caught: Error) => setError(caught.message));
  }, [name]);

  // The browser's own prompt guards reloads and closing the tab while edits are unsaved.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  async function save() {
    setError(null);
    try {
      const result = await apiFetch<{ persona: PersonaJson }>(`/api/personas/${encodeURIComponent(name)}`, { method: 'PUT', body: { content: draft } });
      setSaved(result.persona.content);
      setStatus('Saved');
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function remove() {
    setConfirmDelete(false);
    try {
      await apiFetch(`/api/personas/${encodeURIComponent(name)}`, { method: 'DELETE' });
      router.push('/personas');
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  function leave(event: React.MouseEvent<HTMLAnchorElement>) {
    if (dirty && !window.confirm('You have unsaved changes. Leave without saving?')) event.preventDefault();
  }

  if (saved === null) return error ? <ErrorBanner message={error} /> : <p aria-busy="true">Loading…</p>;

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <a href="/personas" onClick={leave} className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← All personas
        </a>
        <h1 className="text-2xl font-semibold">{name}</h1>
        {dirty ? (
          <span role="status" className="rounded-full bg-amber-100 px-2 py-0.5 text-xs text-amber-800 dark:bg-amber-950 dark:text-amber-300">
            Unsaved changes
          </span>
        ) : (
          status && <span role="status" className="text-xs text-green-700 dark:text-green-400">{status}</span>
        )}
        <div className="ml-auto flex gap-2">
          <a href={`/personas/${encodeURIComponent(name)}/capabilities`} onClick={leave} className="btn">
            Capabilities
          </a>
          <button type="button" className="btn btn-primary" disabled={!dirty} onClick={() => void save()}>
            Save
          </button>
          <button type="button" className="btn" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        </div>
      </div>
      <ErrorBanner message={error} />
      <div className="grid gap-4 lg:grid-cols-2">
        <label className="block">
          <span className="mb-1 block text-sm font-medium">Markdown</span>
          <textarea
            className="field h-[65vh] font-mono text-xs leading-relaxed"
            value={draft}
            spellCheck
            onChange={(event) => {
              setDraft(event.target.value);
              setStatus(null);
            }}
            onKeyDown={(event) => {
              if ((event.metaKey || event.ctrlKey) && event.key === 's') {
                event.preventDefault();
                if (dirty) void save();
              }
            }}
          />
        </label>
        <section aria-label="Preview" tabIndex={0} className="h-[65vh] overflow-y-auto rounded-md border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
          <MarkdownView text={draft} />
        </section>
      </div>
      <ConfirmDialog
        open={confirmDelete}
        title="Delete this persona?"
        message={<>personas/{name}.md will be deleted. Sessions that used it keep their own snapshot.</>}
        confirmLabel="Delete persona"
        danger
        onConfirm={() => void remove()}
        onCancel={() => setConfirmDelete(false)}
      />
    </div>
  );
}
