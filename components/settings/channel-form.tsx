'use client';

import { useState } from 'react';
import { EmailChannelFields, emailConfigBody, emailFieldsFrom } from './email-channel-fields';
import { DiscordFields } from './discord-channel-fields';
import { SlackFields } from './slack-channel-fields';
import { WhatsAppFields, whatsappConfigBody, whatsappFieldsFrom } from './whatsapp-channel-fields';

type Kind = 'telegram' | 'irc' | 'email' | 'discord' | 'slack' | 'whatsapp';

export interface ChannelJson {
  id: string;
  kind: Kind;
  name: string;
  enabled: boolean;
  config: Record<string, unknown>;
  state: { kind: 'connecting' | 'connected' | 'rate_limited' | 'failed' | 'stopped' | 'elsewhere'; retryAt?: string; reason?: string; until?: string; detail?: string };
  counters: { received: number; ignored: number; sent: number };
  outbox: { pending: number; sent: number; failed: number };
  /** Why the newest held message waits for its recipient. */
  waiting?: string | null;
}

/** Adding (or editing) one channel: a Telegram or Discord bot's token, a Slack app's two tokens, an IRC server, nick and channels, or a mail account. Secrets are write-only. */
/** A name for each kind of channel, as a household would call it. */
const PLACEHOLDERS: Record<string, string> = { telegram: 'My phone', email: 'Assistant’s mailbox', irc: 'Libera', discord: 'Family server', slack: 'Family workspace', whatsapp: 'Family WhatsApp' };

export function ChannelForm({ editing, onSave, onCancel }: { editing: ChannelJson | null; onSave: (body: unknown) => Promise<void>; onCancel: () => void }) {
  const config = editing?.config ?? {};
  const [kind, setKind] = useState<Kind>(editing?.kind ?? 'telegram');
  const [name, setName] = useState(editing?.name ?? '');
  const [token, setToken] = useState('');
  const [apiRoot, setApiRoot] = useState(String(config.api_root ?? 'https://api.telegram.org'));
  const [host, setHost] = useState(String(config.host ?? ''));
  const [port, setPort] = useState(Number(config.port ?? 6697));
  const [tls, setTls] = useState(config.tls !== false);
  const [nick, setNick] = useState(String(config.nick ?? ''));
  const [account, setAccount] = useState(String(config.account ?? ''));
  const [password, setPassword] = useState('');
  const [rooms, setRooms] = useState(((config.channels as string[] | undefined) ?? []).join(' '));
  const [busy, setBusy] = useState(false);
  const [email, setEmail] = useState(() => emailFieldsFrom(editing?.kind === 'email' ? config : {}));
  const [guildChannels, setGuildChannels] = useState(((config.guild_channels as string[] | undefined) ?? []).join(' '));
  const [discordApi, setDiscordApi] = useState(String(editing?.kind === 'discord' ? config.api_root : 'https://discord.com/api'));
  const [appToken, setAppToken] = useState('');
  const [slackApi, setSlackApi] = useState(String(editing?.kind === 'slack' ? config.api_root : 'https://slack.com/api/'));
  const [whatsapp, setWhatsapp] = useState(() => whatsappFieldsFrom(editing?.kind === 'whatsapp' ? config : {}));
  const savedSmtp = (config.smtp ?? {}) as { user?: string };
  const [sameAccount, setSameAccount] = useState(editing?.kind !== 'email' || savedSmtp.user === ((config.imap ?? {}) as { user?: string }).user);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const base = { ...(editing && { id: editing.id }), kind, name: name.trim() || (kind === 'telegram' ? 'Telegram' : kind === 'discord' ? 'Discord' : kind === 'slack' ? 'Slack' : kind === 'whatsapp' ? 'WhatsApp' : kind === 'email' ? email.address.trim() || 'Mail' : host), enabled: editing?.enabled ?? true };
      await onSave(
        kind === 'telegram'
          ? { ...base, config: { token, api_root: apiRoot.trim() } }
          : kind === 'email'
            ? { ...base, config: emailConfigBody(email, sameAccount) }
            : kind === 'discord'
              ? { ...base, config: { token, guild_channels: guildChannels.split(/[\s,]+/).filter(Boolean), api_root: discordApi.trim() } }
            : kind === 'slack'
              ? { ...base, config: { app_token: appToken, bot_token: token, api_root: slackApi.trim() } }
            : kind === 'whatsapp'
              ? { ...base, config: whatsappConfigBody(whatsapp) }
            : { ...base, config: { host: host.trim(), port, tls, nick: nick.trim(), account: account.trim(), password, channels: rooms.split(/[\s,]+/).filter(Boolean) } },
      );
    } finally {
      setBusy(false);
    }
  }

  const secretHint = (value: unknown) => (value ? `(set, ${String(value)}; leave empty to keep)` : '');
  return (
    <form onSubmit={submit} className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800" aria-label={editing ? `Edit ${editing.name}` : 'Add a channel'}>
      <div className="grid gap-2 sm:grid-cols-2">
        <label className="flex flex-col text-sm">
          Kind
          <select className="field" value={kind} disabled={!!editing} onChange={(event) => setKind(event.target.value as Kind)}>
            <option value="telegram">Telegram bot</option>
            <option value="irc">IRC</option>
            <option value="email">Email (IMAP and SMTP)</option>
            <option value="discord">Discord bot</option>
            <option value="slack">Slack app</option>
            <option value="whatsapp">WhatsApp (Meta’s Cloud API)</option>
          </select>
        </label>
        <label className="flex flex-col text-sm">
          Name
          <input className="field" value={name} onChange={(event) => setName(event.target.value)} placeholder={PLACEHOLDERS[kind] ?? 'Family chat'} />
        </label>
      </div>
      {kind === 'whatsapp' ? (
        <WhatsAppFields value={whatsapp} onChange={setWhatsapp} saved={editing?.kind === 'whatsapp' ? config : {}} />
      ) : kind === 'slack' ? (
        <SlackFields appToken={appToken} onAppToken={setAppToken} botToken={token} onBotToken={setToken} saved={editing?.kind === 'slack' ? config : {}} api={slackApi} onApi={setSlackApi} />
      ) : kind === 'discord' ? (
        <DiscordFields token={token} onToken={setToken} savedToken={config.token} guildChannels={guildChannels} onGuildChannels={setGuildChannels} api={discordApi} onApi={setDiscordApi} />
      ) : kind === 'email' ? (
        <EmailChannelFields value={email} onChange={setEmail} saved={editing?.kind === 'email' ? config : {}} sameAccount={sameAccount} onSameAccount={setSameAccount} />
      ) : kind === 'telegram' ? (
        <div className="grid gap-2 sm:grid-cols-2">
          <label className="flex flex-col text-sm">
            Bot token {secretHint(config.token)}
            <input className="field" type="password" autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} placeholder="123456789:AA… from @BotFather" />
          </label>
          <label className="flex flex-col text-sm">
            Bot API server
            <input className="field" value={apiRoot} onChange={(event) => setApiRoot(event.target.value)} />
          </label>
        </div>
      ) : (
        <div className="grid gap-2 sm:grid-cols-3">
          <label className="flex flex-col text-sm">
            Server
            <input className="field" value={host} onChange={(event) => setHost(event.target.value)} placeholder="irc.libera.chat" />
          </label>
          <label className="flex flex-col text-sm">
            Port
            <input className="field" type="number" min={1} max={65535} value={port} onChange={(event) => setPort(Number(event.target.value))} />
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={tls} onChange={(event) => setTls(event.target.checked)} /> TLS
          </label>
          <label className="flex flex-col text-sm">
            Nick
            <input className="field" value={nick} onChange={(event) => setNick(event.target.value)} />
          </label>
          <label className="flex flex-col text-sm">
            Account (SASL / NickServ)
            <input className="field" value={account} onChange={(event) => setAccount(event.target.value)} />
          </label>
          <label className="flex flex-col text-sm">
            Password {secretHint(config.password)}
            <input className="field" type="password" autoComplete="off" value={password} onChange={(event) => setPassword(event.target.value)} />
          </label>
          <label className="flex flex-col text-sm sm:col-span-3">
            Channels to join (optional; conversations are private messages)
            <input className="field" value={rooms} onChange={(event) => setRooms(event.target.value)} placeholder="#agentcsd" />
          </label>
        </div>
      )}
      <div className="flex gap-2">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {editing ? 'Save channel' : 'Add channel'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
