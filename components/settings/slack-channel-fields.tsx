'use client';

import { useState } from 'react';

/** A Slack app's settings, with the steps from the manifest AgentCSD ships: its two tokens (write-only) and the Web API's address. */
export function SlackFields(props: { appToken: string; onAppToken: (value: string) => void; botToken: string; onBotToken: (value: string) => void; saved: Record<string, unknown>; api: string; onApi: (value: string) => void }) {
  const [manifest, setManifest] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const hint = (value: unknown) => (value ? `(set, ${String(value)}; leave empty to keep)` : '');
  return (
    <div className="space-y-2">
      <ol className="list-decimal space-y-0.5 pl-5 text-xs text-zinc-500">
        <li>
          At api.slack.com/apps, <em>Create New App › From a manifest</em>, pick the workspace and paste{' '}
          <button type="button" className="underline" onClick={() => void fetch('/api/channels/slack-manifest').then(async (response) => setManifest(await response.text()))}>
            AgentCSD’s manifest
          </button>{' '}
          (docs/slack-app-manifest.yml: Socket Mode on, the bot’s scopes, its events, <code>/agentcsd</code>, interactivity, the AI side panel).
        </li>
        <li>
          <em>Basic Information › App-Level Tokens › Generate</em> with the scope <code>connections:write</code>: the <code>xapp-…</code> token.
        </li>
        <li>
          <em>Install to Workspace</em>, then <em>OAuth &amp; Permissions</em>: the <code>xoxb-…</code> Bot User OAuth Token. No public URL is needed.
        </li>
        <li>Write to the app in a DM: it answers with a pairing code to approve here. In a channel, invite it and say <code>/agentcsd join &lt;persona&gt;</code>.</li>
      </ol>
      {manifest !== null && (
        <div className="space-y-1">
          <button type="button" className="btn" onClick={() => navigator.clipboard.writeText(manifest).then(() => setCopied(true), () => setCopied(false))}>
            {copied ? 'Copied' : 'Copy the manifest'}
          </button>
          <pre className="max-h-64 overflow-auto rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-900" aria-label="Slack app manifest">{manifest}</pre>
        </div>
      )}
      <div className="grid gap-2 sm:grid-cols-2">
        <label className="flex flex-col text-sm">
          App-level token {hint(props.saved.app_token)}
          <input className="field" type="password" autoComplete="off" value={props.appToken} onChange={(event) => props.onAppToken(event.target.value)} placeholder="xapp-1-A…" />
        </label>
        <label className="flex flex-col text-sm">
          Bot token {hint(props.saved.bot_token)}
          <input className="field" type="password" autoComplete="off" value={props.botToken} onChange={(event) => props.onBotToken(event.target.value)} placeholder="xoxb-…" />
        </label>
        <label className="flex flex-col text-sm sm:col-span-2">
          Slack Web API
          <input className="field" value={props.api} onChange={(event) => props.onApi(event.target.value)} />
        </label>
      </div>
    </div>
  );
}
