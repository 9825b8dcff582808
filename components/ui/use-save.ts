'use client';

import { useState } from 'react';
import { errorText } from '@/lib/errors/error-text';

/** The state of a form's save: running, done (until the form changes again), or its error. */
export function useSave() {
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Changed since the last successful save (unsaved-changes.tsx warns before leaving). */
  const [dirty, setDirty] = useState(false);

  async function run(action: () => Promise<void>): Promise<void> {
    setSaving(true);
    setError(null);
    try {
      await action();
      setSaved(true);
      setDirty(false);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setSaving(false);
    }
  }

  return {
    saving,
    saved,
    dirty,
    error,
    setError,
    run,
    changed: () => {
      setSaved(false);
      setDirty(true);
    },
  };
}
