'use client';

import { useRef, useState } from 'react';
import { useRouter } from 'next/navigation';
import type { SessionJson } from './session-types';

/** "Import session": a file that "Export JSON" wrote becomes a new, paused session. */
export function ImportSession() {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'note'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function upload(file: File) {
    setBusy(true);
    setMessage(null);
    try {
      // Sent as it is: the server validates every byte; the browser only reads the file.
      const response = await fetch('/api/sessions/import', { method: 'POST', headers: { 'content-type': 'application/json' }, body: await file.text() });
      const answer = (await response.json().catch(() => null)) as { session?: SessionJson; notes?: string[]; error?: { message: string } } | null;
      if (!response.ok || !answer?.session) {
        setMessage({ kind: 'error', text: `Could not import ${file.name}: ${answer?.error?.message ?? `the server answered ${response.status}`}` });
        return;
      }
      if (answer.notes?.length) setMessage({ kind: 'note', text: answer.notes.join(' ') });
      router.push(`/sessions/${answer.session.id}`);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  }

  return (
    <div className="flex flex-wrap items-center gap-3 text-sm">
      <label className="btn cursor-pointer">
        {busy ? 'Importing…' : 'Import session (JSON)'}
        <input
          ref={input}
          type="file"
          accept="application/json,.json"
          className="sr-only"
          disabled={busy}
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) void upload(file);
          }}
        />
      </label>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} className={message.kind === 'error' ? 'text-red-700 dark:text-red-300' : 'text-zinc-600 dark:text-zinc-300'}>
          {message.text}
        </p>
      )}
    </div>
  );
}
