'use client';

import { useState } from 'react';
import { errorText } from '@/lib/errors/error-text';

/** One action at a time on a form (Save, Test, Turn off): busy while it runs, then its status line or its error. */
export function useBusyAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      await action();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, setError, status, setStatus, run };
}
