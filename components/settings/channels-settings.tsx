'use client';

import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { ChannelForm, type ChannelJson } from './channel-form';
import { PairingRow, type PairingJson, type PairingTargets } from './pairing-approval';
import { errorText } from '@/lib/errors/error-text';

function stateText(state: ChannelJson['state']): string {
  switch (state.kind) {
    case 'connected':
      return `connected${state.detail ? ` ${state.detail}` : ''}`;
    case 'connecting':
      return `connecting${state.retryAt ? `, next try ${new Date(state.retryAt).toLocaleTimeString()}` : ''}${state.reason ? ` (${state.reason})` : ''}`;
    case 'rate_limited':
      return `rate limited by the provider until ${state.until ? new Date(state.until).toLocaleTimeString() : 'soon'}`;
    case 'failed':
      return `failed: ${state.reason ?? 'unknown reason'}`;
    case 'elsewhere':
      return 'connected by another process of the cluster';
    default:
      return 'stopped';
  }
}

/** Settings › Channels: Telegram and Discord bots, IRC connections and mailboxes, their state, and the codes waiting for approval. */
export function ChannelsSettings() {
  const [channels, setChannels] = useState<ChannelJson[] | null>(null);
  const [pairings, setPairings] = useState<Record<string, PairingJson[]>>({});
  const [targets, setTargets] = useState<PairingTargets>({ sessions: [], personas: [], people: [] });
  const [editing, setEditing] = useState<ChannelJson | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      const { channels: list } = await apiFetch<{ channels: ChannelJson[] }>('/api/channels');
      setChannels(list);
      const waiting = await Promise.all(list.map(async (channel) => [channel.id, (await apiFetch<{ pairings: PairingJson[] }>(`/api/channels/${channel.id}/pairings`)).pairings] as const));
      setPairings(Object.fromEntries(waiting));
    } catch (caught) {
      setError(errorText(caught));
    }
  }, []);

  useEffect(() => {
    void refresh();
    Promise.all([apiFetch<{ sessions: PairingTargets['sessions'] }>('/api/sessions?page_size=100'), apiFetch<{ personas: { name: string }[] }>('/api/personas'), apiFetch<{ people: PairingTargets['people'] }>('/api/people')]).then(
      ([sessions, personas, people]) => setTargets({ sessions: sessions.sessions, personas: personas.personas.map((persona) => persona.name), people: people.people }),
      (caught: Error) => setError(caught.message),
    );
    const timer = setInterval(() => void refresh(), 3_000);
    return () => clearInterval(timer);
  }, [refresh]);

  async function save(body: unknown) {
    try {
      await apiFetch('/api/channels', { method: 'PUT', body });
      setEditing(null);
      setError(null);
      setNotice('Saved; connecting.');
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function clearCodes(channel: ChannelJson) {
    try {
      const { withdrawn } = await apiFetch<{ withdrawn: number }>(`/api/channels/${channel.id}/pairings`, { method: 'DELETE' });
      setNotice(`${withdrawn} code${withdrawn === 1 ? '' : 's'} withdrawn from ${channel.name}.`);
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function act(channel: ChannelJson, action: 'test' | 'delete' | 'toggle') {
    try {
      if (action === 'test') {
        const answer = await apiFetch<{ ok: boolean; detail?: string; error?: string }>(`/api/channels/${channel.id}/test`, { method: 'POST' });
        setNotice(answer.ok ? `${channel.name} works: ${answer.detail}` : `${channel.name} does not work: ${answer.error}`);
      } else if (action === 'delete') {
        if (!window.confirm(`Delete ${channel.name}, its pairings and bindings?`)) return;
        await apiFetch(`/api/channels/${channel.id}`, { method: 'DELETE' });
        // What was said of it (a failed test or save) goes with it (issue 75 §9).
        setError(null);
        setNotice(`${channel.name} deleted.`);
      } else {
        await apiFetch('/api/channels', { method: 'PUT', body: { id: channel.id, kind: channel.kind, name: channel.name, enabled: !channel.enabled, config: { ...channel.config, ...(channel.kind === 'irc' && { port: Number(channel.config.port) }) } } });
      }
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <section aria-labelledby="channels-heading" className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="channels-heading" className="text-lg font-semibold">
        Channels
      </h2>
      <p className="text-sm text-zinc-500">
        Talk to a session from Telegram, WhatsApp, Discord, Slack, IRC or email. Nobody gets through until you approve the pairing code they were sent; approval cards can be decided from there too.
      </p>
      <ErrorBanner message={error} />
      {notice && (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          {notice}
        </p>
      )}
      {!channels && !error && <p aria-busy="true">Loading…</p>}
      <ul className="space-y-3">
        {channels?.map((channel) => (
          <li key={channel.id} className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800" data-testid="channel">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <div>
                <strong>{channel.name}</strong> <span className="text-xs text-zinc-500">{channel.kind === 'telegram' ? 'Telegram' : channel.kind === 'discord' ? 'Discord' : channel.kind === 'slack' ? 'Slack' : channel.kind === 'whatsapp' ? `WhatsApp ${String(channel.config.phone_number_id)}` : channel.kind === 'email' ? `Email ${String(channel.config.address)}` : `IRC ${String(channel.config.host)}`}</span>
                <p className="text-sm" data-testid="channel-state">
                  {channel.enabled ? stateText(channel.state) : 'disabled'}
                </p>
                <p className="text-xs text-zinc-500">
                  {channel.counters.received} received · {channel.counters.ignored} from strangers (ignored) · {channel.outbox.sent} sent · {channel.outbox.pending} waiting
                  {channel.outbox.failed > 0 && ` · ${channel.outbox.failed} failed`}
                </p>
                {channel.waiting && (
                  <p className="text-xs text-amber-700 dark:text-amber-400" data-testid="channel-waiting">
                    Waiting: {channel.waiting}
                  </p>
                )}
                {channel.kind === 'whatsapp' && (
                  <p className="break-all text-xs text-zinc-500" data-testid="whatsapp-webhook">
                    Meta’s webhook: <code>{`${typeof window === 'undefined' ? '' : window.location.origin}${String(channel.config.webhook_path)}`}</code> · verify token <code>{String(channel.config.verify_token)}</code> · field <code>messages</code>
                  </p>
                )}
              </div>
              <div className="flex gap-2">
                <button type="button" className="btn" onClick={() => act(channel, 'test')}>
                  Test
                </button>
                <button type="button" className="btn" onClick={() => setEditing(channel)}>
                  Edit
                </button>
                <button type="button" className="btn" onClick={() => act(channel, 'toggle')}>
                  {channel.enabled ? 'Disable' : 'Enable'}
                </button>
                <button type="button" className="btn btn-danger" onClick={() => act(channel, 'delete')}>
                  Delete
                </button>
              </div>
            </div>
            {(pairings[channel.id] ?? []).length > 0 && (
              <button type="button" className="btn" onClick={() => void clearCodes(channel)}>
                Withdraw the {pairings[channel.id]!.length} waiting code{pairings[channel.id]!.length === 1 ? '' : 's'}
              </button>
            )}
            {(pairings[channel.id] ?? []).length > 0 && (
              <ul className="space-y-2" aria-label={`Pairing codes waiting on ${channel.name}`}>
                {pairings[channel.id]!.map((pairing) => (
                  <PairingRow key={pairing.code} channel={channel} pairing={pairing} targets={targets} onApproved={(message) => (setNotice(message), void refresh())} />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {editing ? (
        <ChannelForm key={editing === 'new' ? 'new' : editing.id} editing={editing === 'new' ? null : editing} onSave={save} onCancel={() => setEditing(null)} />
      ) : (
        <button type="button" className="btn" onClick={() => setEditing('new')}>
          Add a channel
        </button>
      )}
    </section>
  );
}
