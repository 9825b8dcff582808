'use client';

// Signs this browser out (its session ends on the server) and shows the sign-in page.
import { useState } from 'react';

export function SignOutButton({ className }: { className?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      disabled={busy}
      className={className ?? 'text-sm underline'}
      onClick={() => {
        setBusy(true);
        void fetch('/api/auth/logout', { method: 'POST' }).finally(() => window.location.assign('/sign-in'));
      }}
    >
      Sign out
    </button>
  );
}
