// WORK IN PROGRESS (issue 47, branch `email`): not wired into channel-service yet, no tests yet.
// Email on the channel contract (ARCHITECTURE §15, kind `email`): inbound over IMAP with IDLE from
// the folder the owner picks — each new mail read after the stored cursor (`uidvalidity:uid`,
// advanced only once the mail was handed over, so a restart neither loses nor repeats one), parsed
// with mailparser, its sender verified by DKIM (email-identity.ts); outbound over SMTP submission
// with nodemailer, threaded (Message-ID, In-Reply-To, References), plain text and a simple HTML part.
import type { ImapFlow } from 'imapflow';
import { readOffset, writeOffset, type OutboxPayload } from '@/lib/store/channels-repository';
import { ChannelSendError, type ChannelAdapter, type InboundHandlers } from './channel-types';
import { verifySender, type MailResolver } from './email-identity';

export interface EmailConfig {
  imap_host: string;
  imap_port: number;
  imap_tls: boolean;
  smtp_host: string;
  smtp_port: number;
  smtp_tls: boolean;
  user: string;
  /** An app password: write-only, sealed like MCP tokens. */
  password: string;
  /** The folder read (INBOX unless the owner picks another). */
  folder: string;
  /** The address mail is sent from. */
  address: string;
}

const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000];

export class EmailChannel implements ChannelAdapter {
  private readonly stopController = new AbortController();
  private running: Promise<void> = Promise.resolve();
  private client: ImapFlow | null = null;

  constructor(
    private readonly channelId: string,
    private readonly config: EmailConfig,
    private readonly options: { resolver?: MailResolver } = {},
  ) {}

  private async imap(): Promise<ImapFlow> {
    const { ImapFlow: Client } = await import('imapflow');
    return new Client({ host: this.config.imap_host, port: this.config.imap_port, secure: this.config.imap_tls, auth: { user: this.config.user, pass: this.config.password }, logger: false });
  }

  async test(): Promise<string> {
    const client = await this.imap();
    await client.connect();
    const box = await client.mailboxOpen(this.config.folder, { readOnly: true });
    await client.logout();
    const { createTransport } = await import('nodemailer');
    await createTransport({ host: this.config.smtp_host, port: this.config.smtp_port, secure: this.config.smtp_tls, auth: { user: this.config.user, pass: this.config.password } }).verify();
    return `${this.config.address}: ${box.exists} mail(s) in ${this.config.folder}; SMTP ready`;
  }

  async start(handlers: InboundHandlers): Promise<void> {
    this.running = this.loop(handlers);
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    await this.client?.logout().catch(() => undefined);
    await this.running;
  }

  private async loop(handlers: InboundHandlers): Promise<void> {
    const signal = this.stopController.signal;
    let failures = 0;
    handlers.state({ kind: 'connecting' });
    while (!signal.aborted) {
      try {
        const client = await this.imap();
        this.client = client;
        await client.connect();
        const box = await client.mailboxOpen(this.config.folder);
        handlers.state({ kind: 'connected', detail: `${this.config.address} (${this.config.folder})` });
        failures = 0;
        const read = async () => {
          const [validity, last] = ((await readOffset(this.channelId)) ?? '').split(':');
          const from = validity === String(box.uidValidity) ? Number(last) + 1 : 1;
          for await (const message of client.fetch(`${from}:*`, { uid: true, source: true }, { uid: true })) {
            if (signal.aborted || message.uid < from || !message.source) continue;
            await this.handle(message.source, handlers).catch((error: unknown) => console.error(`[channels] email ${message.uid} failed:`, (error as Error).message));
            await writeOffset(this.channelId, `${box.uidValidity}:${message.uid}`); // handed over: never again
          }
        };
        await read();
        client.on('exists', () => void read());
        while (!signal.aborted && client.usable) await client.idle();
      } catch (error) {
        if (signal.aborted) return;
        const waitMs = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!;
        handlers.state({ kind: 'connecting', retryAt: new Date(Date.now() + waitMs).toISOString(), reason: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  private async handle(raw: Buffer, handlers: InboundHandlers): Promise<void> {
    const { simpleParser } = await import('mailparser');
    const [sender, parsed] = await Promise.all([verifySender(raw, this.options), simpleParser(raw)]);
    if (!sender.address || sender.address === this.config.address.toLowerCase()) return; // its own mail
    await handlers.message({
      // An unverified From is nobody's identity (TODO: the channel service answers such mail with a pairing refusal only).
      sender: sender.verified ? `email:${sender.address}` : `email-unverified:${sender.address}`,
      senderName: sender.name || sender.address,
      address: sender.address,
      text: [parsed.subject ? `Subject: ${parsed.subject}` : '', parsed.text ?? ''].filter(Boolean).join('\n\n').trim(),
      ...(parsed.messageId && { replyTo: parsed.messageId }),
    });
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({ host: this.config.smtp_host, port: this.config.smtp_port, secure: this.config.smtp_tls, auth: { user: this.config.user, pass: this.config.password } });
    try {
      const info = await transport.sendMail({ from: this.config.address, to: address, subject: 'Re: your message', text: payload.text, messageId: `<agentcsd-${this.channelId}-${payload.outboxId}@agentcsd.local>` });
      return info.messageId ?? null;
    } catch (error) {
      throw new ChannelSendError((error as Error).message, 30_000);
    } finally {
      transport.close();
    }
  }
}
