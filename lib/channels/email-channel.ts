// Email on the channel contract (issue 47, ARCHITECTURE §25). Inbound over IMAP with IDLE from
// the folder the owner picks: each mail after the stored cursor (`uidvalidity:uid`, advanced only
// once the mail was handed over, so a restart loses none) is parsed, its sender proven by an
// aligned DKIM signature (email-identity.ts) or refused as unverified, and its text — untrusted
// content, named by its Message-ID so a mail handed over again after a crash is recognised — goes
// to the inbound handlers. Outbound over SMTP submission with nodemailer: threaded on the last mail
// of that address (In-Reply-To, References, "Re:" subject), plain text and a simple HTML part; a
// card carries its one-time code.
import { promises as dns } from 'node:dns';
import type { ImapFlow } from 'imapflow';
import type { Transporter } from 'nodemailer';
import { readEnv } from '@/lib/config/env';
import { readOffset, writeOffset, type OutboxPayload } from '@/lib/store/channels-repository';
import { ChannelSendError, type ChannelAdapter, type InboundHandlers } from './channel-types';
import type { EmailConfig } from './email-config';
import type { MailResolver } from './email-identity';
import { readMail } from './email-message';
import { mailCardCode } from './card-callback';
import { toMailHtml } from './format';

/** The largest mail read (SMTP servers commonly refuse more: Gmail's limit is 25 MB); a larger one is left unread with a notice. */
export const MAX_MAIL_BYTES = 25 * 1024 * 1024;
const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000];
/** IDLE is renewed this often (RFC 2177 asks for less than 29 minutes). */
const IDLE_RENEW_MS = 10 * 60 * 1000;
/** A mail that cannot be handed over is tried this often (with the reconnect backoff between) before it is left. */
const HANDLE_ATTEMPTS = 6;

/** DNS for signatures: the servers of AGENTCSD_DNS_SERVERS, else the system's. */
export function mailResolver(): MailResolver | undefined {
  const servers = readEnv().AGENTCSD_DNS_SERVERS;
  if (!servers) return undefined;
  const resolver = new dns.Resolver({ timeout: 5_000, tries: 2 });
  resolver.setServers(servers.split(','));
  return (name, type) => resolver.resolve(name, type as 'TXT');
}

/** A mail that could not be handed over this time; the loop reconnects after a wait that grows with each attempt. */
class NotHandedOver extends Error {
  constructor(
    message: string,
    readonly attempt: number,
  ) {
    super(message);
  }
}

interface Thread {
  messageId: string;
  references: string[];
  subject: string;
}

const threadKey = (channelId: string, address: string) => `email-thread:${channelId}:${address}`;

export class EmailChannel implements ChannelAdapter {
  private readonly stopController = new AbortController();
  private running: Promise<void> = Promise.resolve();
  private client: ImapFlow | null = null;
  private transport: Transporter | null = null;
  /** The mail whose hand-over failed last, and how many times in a row. */
  private failedUid: { uid: number; count: number } | null = null;

  constructor(
    private readonly channelId: string,
    private readonly config: EmailConfig,
    private readonly resolver: MailResolver | undefined = mailResolver(),
  ) {}

  private async imap(): Promise<ImapFlow> {
    const { ImapFlow: Client } = await import('imapflow');
    const { host, port, tls, user, password } = this.config.imap;
    return new Client({ host, port, secure: tls, auth: { user, pass: password }, logger: false, disableAutoIdle: true, emitLogs: false });
  }

  private async smtp(): Promise<Transporter> {
    if (this.transport) return this.transport;
    const { createTransport } = await import('nodemailer');
    const { host, port, tls, user, password } = this.config.smtp;
    // Port 587 and 25 start plain and must upgrade (STARTTLS) unless TLS is off for a loopback test server.
    this.transport = createTransport({ host, port, secure: tls && port !== 587 && port !== 25, requireTLS: tls && (port === 587 || port === 25), ignoreTLS: !tls, auth: { user, pass: password }, pool: true, maxConnections: 1 });
    return this.transport;
  }

  async test(): Promise<string> {
    const unopened = (['imap', 'smtp'] as const).filter((part) => !this.config[part].password);
    if (unopened.length > 0) throw new Error(`the ${unopened.join(' and ')} password cannot be opened (sealed under another secret key, or never set): enter it again`);
    const client = await this.imap();
    try {
      await client.connect();
      const box = await client.mailboxOpen(this.config.imap.folder, { readOnly: true });
      await (await this.smtp()).verify();
      return `${this.config.address}: IMAP ${this.config.imap.host} (${box.exists} mail(s) in ${this.config.imap.folder}, IDLE ${client.capabilities.has('IDLE') ? 'yes' : 'no'}); SMTP ${this.config.smtp.host} accepts the sign-in`;
    } catch (error) {
      throw new Error(describe(error));
    } finally {
      await client.logout().catch(() => undefined);
      this.transport?.close();
      this.transport = null;
    }
  }

  async start(handlers: InboundHandlers): Promise<void> {
    // The loop keeps itself going; a bug in it is reported as the channel's state, never left unhandled.
    this.running = this.loop(handlers).catch((error: unknown) => {
      console.error('[channels] email loop ended:', error);
      handlers.state({ kind: 'failed', reason: describe(error) });
    });
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    const client = this.client;
    this.client = null;
    await client?.logout().catch(() => client.close());
    await this.running;
    this.transport?.close();
    this.transport = null;
  }

  private async loop(handlers: InboundHandlers): Promise<void> {
    const signal = this.stopController.signal;
    let failures = 0;
    handlers.state({ kind: 'connecting' });
    while (!signal.aborted) {
      try {
        const client = await this.imap();
        client.on('error', () => undefined); // a dropped connection ends the session below
        this.client = client;
        await client.connect();
        if (signal.aborted) break;
        const box = await client.mailboxOpen(this.config.imap.folder);
        handlers.state({ kind: 'connected', detail: `${this.config.address} (${this.config.imap.folder})` });
        failures = 0;
        let more = true;
        let woken: () => void = () => undefined;
        client.on('exists', () => {
          more = true;
          woken();
        });
        while (!signal.aborted && client.usable) {
          if (more) {
            more = false;
            await this.readNew(client, box.uidValidity, handlers);
            continue;
          }
          // IDLE until the server says a mail arrived (the next command ends the IDLE), or it is renewed.
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([client.idle(), new Promise<void>((resolve) => ((woken = resolve), (timer = setTimeout(resolve, IDLE_RENEW_MS))))]);
          clearTimeout(timer);
          if (!more && client.usable) await client.noop(); // renewal: ends this IDLE, the loop starts the next
        }
        if (!signal.aborted) throw new Error('the IMAP connection closed');
      } catch (error) {
        if (signal.aborted) break;
        // A mail not handed over waits longer each time it fails (a store away for a minute loses nothing).
        const attempt = error instanceof NotHandedOver ? error.attempt - 1 : failures++;
        const waitMs = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
        handlers.state({ kind: 'connecting', retryAt: new Date(Date.now() + waitMs).toISOString(), reason: describe(error) });
        this.client?.close();
        // The backoff ends early when the channel stops (stop() waits for this loop).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    }
  }

  /** Every mail after the cursor, in UID order; the cursor advances after each is handed over. */
  private async readNew(client: ImapFlow, uidValidity: bigint, handlers: InboundHandlers): Promise<void> {
    const [validity, last] = ((await readOffset(this.channelId)) ?? '').split(':');
    // A new UIDVALIDITY renumbers the folder: the mails there now are read from its start.
    const from = validity === String(uidValidity) ? Number(last) + 1 : 1;
    const uids = ((await client.search({ uid: `${from}:*` }, { uid: true })) || []).filter((uid) => uid >= from).sort((a, b) => a - b);
    for (const uid of uids) {
      if (this.stopController.signal.aborted) return;
      // Its size first: a mail past the cap is never read whole nor parsed (red-team round 4).
      const sized = await client.fetchOne(String(uid), { size: true }, { uid: true });
      if (sized && typeof sized.size === 'number' && sized.size > MAX_MAIL_BYTES) {
        const megabytes = (sized.size / 1024 / 1024).toFixed(1);
        console.warn(`[channels] email ${uid}: ${megabytes} MB, more than ${MAX_MAIL_BYTES / 1024 / 1024} MB — left unread`);
        handlers.state({ kind: 'connected', detail: `${this.config.address}; a mail of ${megabytes} MB was left unread (more than ${MAX_MAIL_BYTES / 1024 / 1024} MB)` });
        await writeOffset(this.channelId, `${uidValidity}:${uid}`);
        continue;
      }
      const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
      if (message && message.source) {
        try {
          await this.handle(message.source, handlers);
        } catch (error) {
          // Not handed over (its session moving between processes, the store away): read again later,
          // from the same cursor — unless it failed every time, then it is left with the reason logged.
          const failed = (this.failedUid?.uid === uid ? this.failedUid.count : 0) + 1;
          this.failedUid = { uid, count: failed };
          console.warn(`[channels] email ${uid} not handed over (attempt ${failed} of ${HANDLE_ATTEMPTS}):`, describe(error));
          if (failed < HANDLE_ATTEMPTS) throw new NotHandedOver(describe(error), failed);
          console.error(`[channels] email ${uid} left after ${failed} attempts:`, describe(error));
        }
      }
      await writeOffset(this.channelId, `${uidValidity}:${uid}`);
    }
  }

  private async handle(raw: Buffer, handlers: InboundHandlers): Promise<void> {
    const mail = await readMail(raw, { ownAddress: this.config.address, ...(this.resolver && { resolver: this.resolver }) });
    if (!mail) return;
    // Only a proven sender's mail may thread the replies (a forged one could rename the conversation).
    if (mail.verified) await writeOffset(threadKey(this.channelId, mail.facts.address), JSON.stringify({ messageId: mail.facts.messageId, references: mail.facts.references, subject: mail.facts.subject } satisfies Thread));
    await handlers.message(mail.message);
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const stored = await readOffset(threadKey(this.channelId, address));
    const thread = stored ? (JSON.parse(stored) as Thread) : null;
    const secret = this.config.callback_secret ?? '';
    const code = payload.card ? mailCardCode(secret, this.channelId, payload.outboxId) : null;
    const text = code ? `${payload.text}\n\nTo approve, reply with this one line:\n\napprove ${code}\n\nTo refuse: deny ${code} (a reason may follow). The code works once.` : payload.text;
    const subject = code ? `Approval needed (${code})` : thread?.subject ? (/^re:/i.test(thread.subject) ? thread.subject : `Re: ${thread.subject}`) : 'A message from your assistant';
    const messageId = `<agentcsd.${this.channelId}.${payload.outboxId}@${this.config.address.split('@')[1]}>`;
    try {
      await (
        await this.smtp()
      ).sendMail({
        from: this.config.address,
        to: address,
        subject,
        text,
        html: toMailHtml(text),
        messageId,
        headers: { 'Auto-Submitted': 'auto-replied' },
        ...(thread?.messageId && { inReplyTo: thread.messageId, references: [...thread.references, thread.messageId].slice(-20) }),
      });
      return messageId;
    } catch (error) {
      const status = (error as { responseCode?: number }).responseCode;
      // 5xx: the server will not take it (a bad address, a refused recipient); else try again later.
      throw new ChannelSendError(describe(error), status && status >= 500 ? null : 30_000, Boolean(status && status >= 500 && status !== 535));
    }
  }
}

/** An error in words: the server's own text when it gave one (imapflow's and nodemailer's fields vary: only strings are taken). */
export function describe(error: unknown): string {
  const detail = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const text = [detail.responseText, detail.response, detail.message].find((value): value is string => typeof value === 'string' && value.length > 0) ?? String(error);
  return text.slice(0, 500);
}
