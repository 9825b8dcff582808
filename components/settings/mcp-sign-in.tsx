'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { McpServerStatus } from '@/lib/mcp/mcp-pool';
import { errorText } from '@/lib/errors/error-text';

/**
 * Sign in / Sign out for a remote MCP server that uses OAuth. Sign in sends this tab to the
 * server's consent page; the app's /oauth/callback brings it back to Settings.
 */
export function McpSignIn(props: { server: McpServerStatus; busy: boolean; onError: (message: string | null) => void; onChanged: (notice: string) => Promise<void> }) {
  const { server } = props;
  const [working, setWorking] = useState(false);
  if (server.transport !== 'http' || (!server.signed_in && server.state !== 'needs_sign_in')) return null;

  async function signIn() {
    setWorking(true);
    try {
      const { authorization_url } = await apiFetch<{ authorization_url: string | null }>(`/api/mcp-servers/${encodeURIComponent(server.name)}/sign-in`, { method: 'POST' });
      if (authorization_url) {
        window.location.assign(authorization_url);
        return;
      }
      await props.onChanged(`${server.name}: signed in with the stored credentials.`);
    } catch (caught) {
      props.onError(errorText(caught));
    }
    setWorking(false);
  }

  async function signOut() {
    setWorking(true);
    try {
      const result = await apiFetch<{ revoked: boolean; error: string | null }>(`/api/mcp-servers/${encodeURIComponent(server.name)}/sign-out`, { method: 'POST' });
      await props.onChanged(`${server.name}: signed out${result.revoked ? ' and the tokens revoked' : result.error ? ` (not revoked: ${result.error})` : ''}.`);
    } catch (caught) {
      props.onError(errorText(caught));
    }
    setWorking(false);
  }

  return server.signed_in && server.state !== 'needs_sign_in' ? (
    <button type="button" className="btn py-0.5 text-xs" disabled={props.busy || working} onClick={() => void signOut()}>
      Sign out
    </button>
  ) : (
    <button type="button" className="btn btn-primary py-0.5 text-xs" disabled={props.busy || working || !server.enabled} onClick={() => void signIn()}>
      {working ? 'Opening…' : 'Sign in'}
    </button>
  );
}
