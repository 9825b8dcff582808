'use client';

// "Sign in with a passkey" (issue 61 §1-2): the browser offers the passkeys it holds for this site
// (a phone's, a laptop's, a security key); the server checks the answer and sets the session cookie.
import { startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'react';
import { ApiRequestError, apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { errorText } from '@/lib/errors/error-text';
import { safeNext } from '@/lib/web-auth/safe-next';

export function SignInForm({ next }: { next?: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signIn = async () => {
    setBusy(true);
    setError(null);
    try {
      const { options } = await apiFetch<{ options: Parameters<typeof startAuthentication>[0]['optionsJSON'] }>('/api/auth/passkey/login/options', { method: 'POST', body: {} });
      const credential = await startAuthentication({ optionsJSON: options });
      await apiFetch('/api/auth/passkey/login/verify', { method: 'POST', body: { credential } });
      window.location.assign(safeNext(next));
    } catch (caught) {
      setError(caught instanceof ApiRequestError ? caught.message : `The passkey was not used: ${errorText(caught)}`);
      setBusy(false);
    }
  };
  return (
    <div className="space-y-3">
      <button type="button" onClick={() => void signIn()} disabled={busy} className="w-full rounded-md bg-indigo-700 px-4 py-3 text-base font-semibold text-white hover:bg-indigo-800 disabled:opacity-60">
        {busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </button>
      {error && <ErrorBanner message={error} />}
    </div>
  );
}
