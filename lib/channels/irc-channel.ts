// An IRC connection on irc-framework (issue 28 §1): private messages to the bot's nick are the
// conversation; a sender is `nick/account` when the server tags the account (SASL/services), else
// the full hostmask `nick!ident@host` — so a person who changes nick, or someone who takes theirs,
// is a stranger until paired again. Messages are addressed to that identity, not to the nick:
// before each one is sent, WHOIS says who holds the nick now, and only the paired identity gets it
// (issue 41 §1: a squatter on a quit or renamed nick received replies and cards). A message waits
// while the identity is away; a card is never sent to anyone else. Replies go out as plain lines
// within 350 bytes (format.ts), paced by a small token bucket so the server's flood control never
// drops us. The connection is redialled with backoff until stop(); SASL PLAIN when the server
// offers it, else NickServ.
import { Client, type PrivmsgEvent } from 'irc-framework';
import type { OutboxPayload } from '@/lib/store/channels-repository';
import type { IrcConfig } from './channel-config';
import { ChannelSendError, RecipientAwayError, type ChannelAdapter, type InboundHandlers } from './channel-types';
import { toIrcLines } from './format';

const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000];
/** Lines sent at once before pacing starts, and the pace after (well inside RFC 1459's 2 s/line penalty budget). */
const BURST = 5;
const LINE_INTERVAL_MS = 400;

/** How long a message for an away identity waits before the next look. */
const AWAY_RETRY_MS = 30_000;
const WHOIS_TIMEOUT_MS = 10_000;

export function ircIdentity(event: Pick<PrivmsgEvent, 'nick' | 'ident' | 'hostname' | 'account'>): string {
  return event.account ? `irc:${event.nick}/${event.account}` : `irc:${event.nick}!${event.ident}@${event.hostname}`;
}

/** The identity a message is addressed to (a sender without `irc:`), or null for a nick alone. */
export type IrcTarget = { nick: string; account: string } | { nick: string; ident: string; host: string };

export function parseIrcAddress(address: string): IrcTarget | null {
  const withAccount = /^([^/!@\s]+)\/([^/!@\s]+)$/.exec(address);
  if (withAccount) return { nick: withAccount[1]!, account: withAccount[2]! };
  const masked = /^([^/!@\s]+)!([^/!@\s]+)@([^/!@\s]+)$/.exec(address);
  return masked ? { nick: masked[1]!, ident: masked[2]!, host: masked[3]! } : null;
}

/** What WHOIS says of whoever holds a nick now. */
export interface WhoisAnswer {
  nick?: string;
  ident?: string;
  hostname?: string;
  account?: string;
  error?: string;
}

/** Whether the nick's holder now is the paired identity (IRC compares nicks case-insensitively). */
export function holderIsTarget(target: IrcTarget, holder: WhoisAnswer): boolean {
  if (holder.error || !holder.nick || holder.nick.toLowerCase() !== target.nick.toLowerCase()) return false;
  if ('account' in target) return !!holder.account && holder.account.toLowerCase() === target.account.toLowerCase();
  return holder.ident === target.ident && holder.hostname?.toLowerCase() === target.host.toLowerCase();
}

export class IrcChannel implements ChannelAdapter {
  private client: Client | null = null;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private sendChain: Promise<void> = Promise.resolve();
  private tokens = BURST;
  private lastRefill = Date.now();

  constructor(private readonly config: IrcConfig) {}

  private options() {
    const { host, port, tls, nick, account, password } = this.config;
    return {
      host,
      port,
      tls,
      nick,
      username: nick.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 10) || 'agentcsd',
      gecos: 'AgentCSD',
      version: 'AgentCSD',
      auto_reconnect: false,
      ping_interval: 30,
      ping_timeout: 60,
      ...(account && password && { account: { account, password } }),
    };
  }

  async test(): Promise<string> {
    const client = new Client();
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no welcome from ${this.config.host}:${this.config.port} within 15 s`)), 15_000);
      const done = (error: Error | null, detail?: string) => {
        clearTimeout(timer);
        client.removeAllListeners();
        client.on('error', () => undefined);
        client.quit('test done');
        if (error) reject(error);
        else resolve(detail!);
      };
      client.on('registered', (event: { nick: string }) => done(null, `registered as ${event.nick} on ${this.config.host}`));
      client.on('socket error', (error: Error) => done(new Error(`cannot connect: ${error.message}`)));
      client.on('close', () => done(new Error('the server closed the connection')));
      client.connect(this.options());
    });
  }

  async start(handlers: InboundHandlers): Promise<void> {
    this.stopped = false;
    this.dial(handlers);
  }

  private dial(handlers: InboundHandlers): void {
    if (this.stopped) return;
    handlers.state({ kind: 'connecting' });
    const client = new Client();
    this.client = client;
    let lastError = '';
    client.on('registered', () => {
      this.failures = 0;
      for (const channel of this.config.channels) client.join(channel);
      handlers.state({ kind: 'connected', detail: `as ${client.user.nick}` });
    });
    client.on('sasl failed', (event: { reason: string }) => {
      // No SASL on this server: identify to services the old way.
      if (event.reason === 'capability_missing' && this.config.account && this.config.password) client.say('NickServ', `IDENTIFY ${this.config.account} ${this.config.password}`);
    });
    client.on('socket error', (error: Error) => (lastError = error.message));
    client.on('irc error', (event: { error: string; reason?: string }) => (lastError = `${event.error}${event.reason ? `: ${event.reason}` : ''}`));
    client.on('privmsg', (event: PrivmsgEvent) => {
      if (!event.nick) return;
      const nick = client.user.nick;
      // A channel is a group chat (issue 42 §5): its own conversation, never a member's; the bot is
      // addressed as `nick: …` or by name.
      const inChannel = /^[#&]/.test(event.target);
      if (!inChannel && event.target.toLowerCase() !== nick.toLowerCase()) return;
      const addressed = new RegExp(`(^|\\W)${nick.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\W|$)`, 'i').test(event.message);
      void handlers
        .message({
          sender: ircIdentity(event),
          senderName: `${event.nick}!${event.ident}@${event.hostname}`,
          address: inChannel ? event.target : ircIdentity(event).slice('irc:'.length),
          text: inChannel ? event.message.replace(new RegExp(`^${nick.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[:,]\\s*`, 'i'), '') : event.message,
          ...(inChannel && { group: { id: event.target, title: event.target, addressed } }),
        })
        .catch((error: unknown) => console.error('[channels] irc message failed:', error instanceof Error ? error.message : error));
    });
    client.on('close', () => {
      if (this.client !== client || this.stopped) return;
      this.client = null;
      const waitMs = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)]!;
      this.failures++;
      handlers.state({ kind: 'connecting', retryAt: new Date(Date.now() + waitMs).toISOString(), reason: lastError || 'the connection closed' });
      this.retryTimer = setTimeout(() => this.dial(handlers), waitMs);
    });
    client.connect(this.options());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    if (client) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        client.once('close', () => (clearTimeout(timer), resolve()));
        client.quit('AgentCSD stopping');
      });
    }
  }

  /** Waits for a token of the bucket: BURST lines at once, then one per LINE_INTERVAL_MS. */
  private async pace(): Promise<void> {
    const now = Date.now();
    this.tokens = Math.min(BURST, this.tokens + (now - this.lastRefill) / LINE_INTERVAL_MS);
    this.lastRefill = now;
    if (this.tokens < 1) {
      await new Promise((resolve) => setTimeout(resolve, (1 - this.tokens) * LINE_INTERVAL_MS));
      this.tokens = 1;
      this.lastRefill = Date.now();
    }
    this.tokens -= 1;
  }

  /** Who holds `nick` now (an error when nobody does, or the server does not say in time). */
  private whois(client: Client, nick: string): Promise<WhoisAnswer> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ error: 'no WHOIS answer' }), WHOIS_TIMEOUT_MS);
      client.whois(nick, (answer: WhoisAnswer) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    // A channel the agent was asked into: its members read it; a card never goes there.
    if (/^[#&]/.test(address)) {
      if (payload.card) throw new ChannelSendError('a card is never sent to a channel', null, true);
      const run = this.sendChain.then(async () => {
        for (const line of toIrcLines(payload.text)) {
          const client = this.client;
          if (!client || !client.connected) throw new ChannelSendError('not connected to the IRC server', 5_000);
          await this.pace();
          client.say(address, line || ' ');
        }
      });
      this.sendChain = run.catch(() => undefined);
      await run;
      return null;
    }
    const target = parseIrcAddress(address);
    // A pairing from before identities were checked named a nick alone: it cannot be verified.
    if (!target) throw new ChannelSendError(`"${address}" names a nick, not the identity that paired: pair again`, null, true);
    const lines = toIrcLines(payload.text);
    if (payload.card) lines.push(`Reply !approve ${payload.outboxId}, !always ${payload.outboxId} or !deny ${payload.outboxId} <reason>`);
    const run = this.sendChain.then(async () => {
      const connected = () => {
        const client = this.client;
        if (!client || !client.connected) throw new ChannelSendError('not connected to the IRC server', 5_000);
        return client;
      };
      // Checked right before each line, after its pacing wait: a nick taken while a long answer
      // is paced out gets none of the rest. (What is left is the time WHOIS's answer takes to reach
      // us and our line to reach the server: IRC has no way to address an identity instead of a nick.)
      for (const [index, line] of lines.entries()) {
        await this.pace();
        const client = connected();
        const holder = await this.whois(client, target.nick);
        if (!holderIsTarget(target, holder)) {
          const now = holder.error ? `${target.nick} is not online` : `${target.nick} is held by ${holder.nick}!${holder.ident}@${holder.hostname}${holder.account ? ` (${holder.account})` : ''}`;
          // A card goes to the identity that paired or to nobody: the page still has it.
          if (payload.card) throw new ChannelSendError(`card not sent: ${now}, not the paired ${address}`, null, true);
          // Part of it is out: sent again later it would repeat that part, so the rest is given up.
          if (index > 0) throw new ChannelSendError(`${index} of ${lines.length} lines sent; the rest not: ${now}`, null, true);
          throw new RecipientAwayError(`waiting for ${address}: ${now}`, AWAY_RETRY_MS);
        }
        client.say(target.nick, line || ' ');
      }
    });
    this.sendChain = run.catch(() => undefined);
    await run;
    return null; // IRC has no message ids
  }
}
