// An IRC connection on irc-framework (issue 28 §1): private messages to the bot's nick are the
// conversation; a sender is `nick/account` when the server tags the account (SASL/services), else
// the full hostmask `nick!ident@host` — so a person who changes nick, or someone who takes theirs,
// is a stranger until paired again. Replies go out as plain lines within 350 bytes (format.ts),
// paced by a small token bucket so the server's flood control never drops us. The connection is
// redialled with backoff until stop(); SASL PLAIN when the server offers it, else NickServ.
import { Client, type PrivmsgEvent } from 'irc-framework';
import type { OutboxPayload } from '@/lib/store/channels-repository';
import type { IrcConfig } from './channel-config';
import { ChannelSendError, type ChannelAdapter, type InboundHandlers } from './channel-types';
import { toIrcLines } from './format';

const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000];
/** Lines sent at once before pacing starts, and the pace after (well inside RFC 1459's 2 s/line penalty budget). */
const BURST = 5;
const LINE_INTERVAL_MS = 400;

export function ircIdentity(event: Pick<PrivmsgEvent, 'nick' | 'ident' | 'hostname' | 'account'>): string {
  return event.account ? `irc:${event.nick}/${event.account}` : `irc:${event.nick}!${event.ident}@${event.hostname}`;
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
      // Only what is written to the bot itself; channel chatter is not the paired person speaking.
      if (!event.nick || event.target.toLowerCase() !== client.user.nick.toLowerCase()) return;
      void handlers
        .message({ sender: ircIdentity(event), senderName: `${event.nick}!${event.ident}@${event.hostname}`, address: event.nick, text: event.message })
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

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const lines = toIrcLines(payload.text);
    if (payload.card) lines.push(`Reply !approve ${payload.outboxId}, !always ${payload.outboxId} or !deny ${payload.outboxId} <reason>`);
    const run = this.sendChain.then(async () => {
      for (const line of lines) {
        const client = this.client;
        if (!client || !client.connected) throw new ChannelSendError('not connected to the IRC server', 5_000);
        await this.pace();
        client.say(address, line || ' ');
      }
    });
    this.sendChain = run.catch(() => undefined);
    await run;
    return null; // IRC has no message ids
  }
}
