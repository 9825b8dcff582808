'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { errorText } from '@/lib/errors/error-text';

/** One click: the owner's own replies go past the day's allowances until midnight (issue 48). */
export function OverrideButton({ onError }: { onError: (message: string) => void }) {
  const [until, setUntil] = useState<string | null>(null);
  async function allow() {
    try {
      setUntil((await apiFetch<{ override_until: string }>('/api/allowances/override', { method: 'POST' })).override_until);
    } catch (caught) {
      onError(errorText(caught));
    }
  }
  return until ? (
    <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
      Your own messages go past the allowances until {new Date(until).toLocaleString()}; send yours again.
    </p>
  ) : (
    <button type="button" className="btn" onClick={() => void allow()}>
      Let my own messages through today
    </button>
  );
}
