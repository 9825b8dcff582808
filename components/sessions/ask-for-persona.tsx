'use client';

// A guest with no one to talk to yet (issue 75 §4): who to ask, and asking from here — the owner is
// notified and gives a persona on People with one click. While the request is open the page looks
// again now and then, so the conversation can start the moment it is given.
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';

interface RequestJson {
  asked_at: string;
  note: string | null;
}

export function AskForPersona({ onGiven }: { onGiven: () => void }) {
  const [request, setRequest] = useState<RequestJson | null | undefined>(undefined);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    apiFetch<{ request: RequestJson | null }>('/api/persona-requests').then(
      (answer) => setRequest(answer.request),
      (caught: Error) => setError(caught.message),
    );
  }, []);
  useEffect(() => {
    if (!request) return;
    const timer = setInterval(onGiven, 10_000);
    return () => clearInterval(timer);
  }, [request, onGiven]);
  const ask = () => {
    setSending(true);
    setError(null);
    apiFetch<{ request: RequestJson }>('/api/persona-requests', { method: 'POST', body: note.trim() ? { note: note.trim() } : {} }).then(
      (answer) => {
        setRequest(answer.request);
        setSending(false);
      },
      (caught: Error) => {
        setError(caught.message);
        setSending(false);
      },
    );
  };
  return (
    <section className="space-y-3 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-950 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-100" data-testid="no-personas">
      <p>You have no one to talk to yet: the owner gives each guest the personas they may talk to.</p>
      {request ? (
        <p role="status">
          You asked the owner on {new Date(request.asked_at).toLocaleString()}. They were told; your conversation can start here as soon as they give you a persona.
        </p>
      ) : (
        <form
          className="space-y-2"
          onSubmit={(event) => {
            event.preventDefault();
            ask();
          }}
        >
          <label className="block">
            A word for the owner (optional)
            <input value={note} onChange={(event) => setNote(event.target.value)} maxLength={500} placeholder="Who would you like to talk to, and why?" className="field mt-1 block w-full text-base" />
          </label>
          <button type="submit" disabled={sending || request === undefined} className="rounded-md bg-indigo-700 px-4 py-2 font-semibold text-white hover:bg-indigo-800 disabled:opacity-60">
            {sending ? 'Asking…' : 'Ask the owner for someone to talk to'}
          </button>
        </form>
      )}
      <ErrorBanner message={error} />
    </section>
  );
}
