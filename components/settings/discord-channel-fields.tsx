'use client';

/** A Discord bot's settings, with the Developer Portal's steps: its token (write-only), the guild channels it reads. */
export function DiscordFields(props: { token: string; onToken: (value: string) => void; savedToken: unknown; guildChannels: string; onGuildChannels: (value: string) => void; api: string; onApi: (value: string) => void }) {
  return (
    <div className="space-y-2">
      <ol className="list-decimal space-y-0.5 pl-5 text-xs text-zinc-500">
        <li>
          In the Discord Developer Portal, <em>New Application</em>, then <em>Bot › Reset Token</em> and copy it.
        </li>
        <li>
          Under <em>Privileged Gateway Intents</em> turn on <strong>Message Content</strong>: without it messages in server channels arrive empty (direct messages need nothing). The bot asks for Guilds, Guild Messages, Direct Messages and Message Content.
        </li>
        <li>
          <em>OAuth2 › URL Generator</em>: scopes <code>bot</code> and <code>applications.commands</code>, permissions <em>Send Messages</em> and <em>Read Message History</em>; open the URL to add the bot to your server.
        </li>
        <li>Write to the bot in a direct message: it answers with a pairing code to approve here.</li>
      </ol>
      <div className="grid gap-2 sm:grid-cols-2">
        <label className="flex flex-col text-sm">
          Bot token {props.savedToken ? `(set, ${String(props.savedToken)}; leave empty to keep)` : ''}
          <input className="field" type="password" autoComplete="off" value={props.token} onChange={(event) => props.onToken(event.target.value)} placeholder="MTIz….Gx….abc…" />
        </label>
        <label className="flex flex-col text-sm">
          Server channels to read (optional; ids, with Developer Mode › Copy Channel ID)
          <input className="field" value={props.guildChannels} onChange={(event) => props.onGuildChannels(event.target.value)} placeholder="112233445566778899" />
        </label>
        <label className="flex flex-col text-sm sm:col-span-2">
          Discord API
          <input className="field" value={props.api} onChange={(event) => props.onApi(event.target.value)} />
        </label>
      </div>
    </div>
  );
}
