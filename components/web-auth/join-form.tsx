'use client';

// An invite's page (issue 61 §1): the invited person names this device and makes a passkey on it;
// the invite is used up and this browser is signed in.
import { useState } from 'react';
import { ErrorBanner } from '@/components/ui/error-banner';
import { makePasskey } from './make-passkey';

export function JoinForm({ token }: { token: string }) {
  const [name, setName] = useState('My phone');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const join = async () => {
    setBusy(true);
    setError(null);
    try {
      await makePasskey(name.trim() || 'Passkey', token);
      window.location.assign('/');
    } catch (caught) {
      setError((caught as Error).message);
      setBusy(false);
    }
  };
  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        void join();
      }}
    >
      <label className="block text-sm font-medium">
        Name this device
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={80} className="mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 text-base dark:border-zinc-700 dark:bg-zinc-900" />
      </label>
      <button type="submit" disabled={busy} className="w-full rounded-md bg-indigo-700 px-4 py-3 text-base font-semibold text-white hover:bg-indigo-800 disabled:opacity-60">
        {busy ? 'Waiting for your passkey…' : 'Create a passkey'}
      </button>
      {error && <ErrorBanner message={error} />}
    </form>
  );
}
