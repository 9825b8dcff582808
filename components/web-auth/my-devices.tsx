'use client';

// "My devices" (issue 61 §1): the person's passkeys (named, renamed, revoked), the browsers signed
// in as them (ended from here), a passkey for this device, and signing out.
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { makePasskey } from './make-passkey';
import { NotifyMe } from './notify-me';
import { SignOutButton } from './sign-out-button';

interface Devices {
  passkeys: { id: string; name: string; created_at: string; last_used_at: string | null }[];
  sessions: { id: string; user_agent: string; created_at: string; last_seen_at: string; current: boolean }[];
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');
const button = 'rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800';

export function MyDevices() {
  const [devices, setDevices] = useState<Devices | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    apiFetch<Devices>('/api/auth/devices').then(setDevices, (caught: Error) => setError(caught.message));
  }, []);
  useEffect(load, [load]);
  const act = (work: Promise<unknown>) => work.then(load, (caught: Error) => setError(caught.message));
  const addPasskey = async () => {
    setError(null);
    try {
      await makePasskey('This device');
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <div className="space-y-6">
      <ErrorBanner message={error} />
      <section aria-labelledby="notify-heading" className="space-y-2">
        <h2 id="notify-heading" className="text-lg font-semibold">
          Notifications
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Cards you may decide, and the agent speaking up in your conversations, while no page of yours is open.</p>
        <NotifyMe />
      </section>
      <section aria-labelledby="passkeys-heading" className="space-y-2">
        <h2 id="passkeys-heading" className="text-lg font-semibold">
          Passkeys
        </h2>
        {devices?.passkeys.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">No passkey yet.</p>}
        <ul className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {devices?.passkeys.map((key) => (
            <li key={key.id} className="flex flex-wrap items-center gap-3 p-3">
              <span className="font-medium">{key.name}</span>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                made {when(key.created_at)} · last used {when(key.last_used_at)}
              </span>
              <span className="ml-auto flex gap-2">
                <button
                  type="button"
                  className={button}
                  aria-label={`Rename ${key.name}`}
                  onClick={() => {
                    const name = window.prompt('A name for this passkey', key.name);
                    if (name?.trim()) void act(apiFetch(`/api/auth/devices/${encodeURIComponent(key.id)}`, { method: 'PATCH', body: { name: name.trim() } }));
                  }}
                >
                  Rename
                </button>
                <button type="button" className={button} aria-label={`Revoke ${key.name}`} onClick={() => void act(apiFetch(`/api/auth/devices/${encodeURIComponent(key.id)}`, { method: 'DELETE' }))}>
                  Revoke
                </button>
              </span>
            </li>
          ))}
        </ul>
        <button type="button" className={button} onClick={() => void addPasskey()}>
          Add a passkey on this device
        </button>
      </section>
      <section aria-labelledby="browsers-heading" className="space-y-2">
        <h2 id="browsers-heading" className="text-lg font-semibold">
          Signed-in browsers
        </h2>
        <ul className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {devices?.sessions.map((session) => (
            <li key={session.id} className="flex flex-wrap items-center gap-3 p-3">
              <span className="max-w-md truncate text-sm" title={session.user_agent}>
                {session.user_agent || 'A browser'}
                {session.current && <strong> (this one)</strong>}
              </span>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">last seen {when(session.last_seen_at)}</span>
              {!session.current && (
                <button type="button" className={`${button} ml-auto`} onClick={() => void act(apiFetch(`/api/auth/devices/${session.id}`, { method: 'DELETE' }))}>
                  Sign out there
                </button>
              )}
            </li>
          ))}
        </ul>
        <SignOutButton className={button} />
      </section>
    </div>
  );
}
