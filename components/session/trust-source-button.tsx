'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { trustableOrigin, trustLabel } from '@/lib/config/trust-origin';
import { errorText } from '@/lib/errors/error-text';

interface Trust {
  hosts: string[];
  mcp_servers: string[];
  skills: string[];
}

/** On a card that asks because of untrusted content: trust its source for good (issue 44 §4), in one click. */
export function TrustSourceButton(props: { reason: string }) {
  const origin = trustableOrigin(props.reason);
  const [state, setState] = useState<'idle' | 'busy' | 'done' | string>('idle');
  if (!origin) return null;

  async function trust() {
    if (!origin) return;
    setState('busy');
    try {
      const { trust: current } = await apiFetch<{ trust: Trust }>('/api/trust');
      const key = origin.kind === 'host' ? 'hosts' : origin.kind === 'mcp_server' ? 'mcp_servers' : 'skills';
      await apiFetch('/api/trust', { method: 'PUT', body: { ...current, [key]: [...current[key], origin.name] } });
      setState('done');
    } catch (caught) {
      setState(errorText(caught));
    }
  }

  if (state === 'done') return <span className="text-xs">Trusted {trustLabel(origin)}: what it says no longer makes calls ask.</span>;
  return (
    <span className="inline-flex items-center gap-2">
      <button type="button" className="btn" disabled={state === 'busy'} onClick={() => void trust()}>
        Trust {trustLabel(origin)} from now on
      </button>
      {state !== 'idle' && state !== 'busy' && <span className="text-xs">{state}</span>}
    </span>
  );
}
