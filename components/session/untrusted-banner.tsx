'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { SessionJson } from '@/lib/http/session-json';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import { errorText } from '@/lib/errors/error-text';

/**
 * Why this session's latest turn asks (§20, issue 44 §4): the untrusted content its prompt held,
 * named. The next turn starts without it; the owner, having read the session, may vouch for what it
 * holds in one click (Settings › Tools and trust trusts a source for good).
 */
export function UntrustedBanner(props: { session: SessionJson; toolCalls: Record<string, ToolCallJson>; onCleared: (session: SessionJson) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [clearedAt, setClearedAt] = useState<number>(0);
  // A card waiting now names the source before the session is read again.
  const fromCards = Object.values(props.toolCalls).find((call) => call.untrusted_reason && call.status === 'awaiting_approval' && Date.parse(call.created_at) > clearedAt)?.untrusted_reason ?? null;
  const source = props.session.untrusted_source ?? fromCards;
  if (!source) return null;

  async function clear() {
    setBusy(true);
    setError(null);
    try {
      const result = await apiFetch<{ session: SessionJson }>(`/api/sessions/${props.session.id}/untrusted/clear`, { method: 'POST' });
      setClearedAt(Date.now());
      props.onCleared(result.session);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div role="status" aria-label="Untrusted content" className="flex flex-wrap items-center gap-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200">
      <span>
        The latest turn read {source}. While a turn holds it, a call that sends data out or acts outside the workspace asks you first, whatever the rules say; the next turn starts without it.
      </span>
      <button type="button" className="btn" disabled={busy} onClick={() => void clear()}>
        I have read it: trust this session
      </button>
      <a className="underline" href="/settings/tools#trusted-sources-heading">
        Trust a source
      </a>
      {error && <span>{error}</span>}
    </div>
  );
}
