// A WhatsApp Business number on Meta's Cloud API (issue 77, ARCHITECTURE §15): webhooks in
// (`/api/channels/:id/whatsapp`, signed by the app secret, answered 200 only once recorded — Meta
// hands over again what was not), the Graph API out. A sender is their number (`wa:+<E.164>`),
// paired as on every chat; the Cloud API has no groups. Replies are WhatsApp's marks split at
// 4,096 characters; a card is an interactive message whose reply buttons carry signed ids
// (card-callback.ts); a person's message is marked read with "typing…" while the mind works;
// the statuses of what we sent come back into the outbox. Outside the 24-hour window only an
// approved template may go: the owner's (its one parameter the words), else the message waits
// for the person to write — said on the Channels page, never dropped.
import { holdSentOutbox, markOutboxDelivery, readOffset, writeOffset, type OutboxPayload } from '@/lib/store/channels-repository';
import { errorText } from '@/lib/errors/error-text';
import { RecipientAwayError, type ChannelAdapter, type ChannelWebhookAnswer, type ChannelWebhookRequest, type InboundHandlers, type InboundMessage } from './channel-types';
import { signCallback } from './card-callback';
import { toWhatsAppMessages } from './format';
import { SeenEvents } from './seen-events';
import { voiceNoteFor } from './voice-replies';
import { whatsappWebhookPath, type WhatsAppConfig } from './whatsapp-config';
import { GraphError, OUTSIDE_WINDOW, WhatsAppGraph } from './whatsapp-graph';
import { messageText, pressedButton, readDelivery, signedByMeta, verificationAnswer, whatsappSender, type WhatsAppMessage, type WhatsAppStatus } from './whatsapp-webhook';

/** WhatsApp lets a business write freely for 24 hours after the person's last message. */
const WINDOW_MS = 24 * 60 * 60 * 1000;
/** An interactive message's body: at most 1,024 characters; a button's title at most 20. */
const BUTTON_BODY_CHARS = 1024;
/** A template parameter: no newlines, tabs or runs of spaces, and short. */
const TEMPLATE_PARAMETER_CHARS = 1000;

const answer = (status: number, body: unknown): ChannelWebhookAnswer =>
  typeof body === 'string' ? { status, body, contentType: 'text/plain' } : { status, body: JSON.stringify(body), contentType: 'application/json' };

export class WhatsAppChannel implements ChannelAdapter {
  private handlers: InboundHandlers | null = null;
  private readonly graph: WhatsAppGraph;
  private readonly seen: SeenEvents;
  /** Messages whose handling began: one begun and not seen finished may be stored already (a crash between the two). */
  private readonly begun: SeenEvents;
  /** A message being handled now: a delivery of it again waits for it, then finds it seen. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly channelId: string,
    private readonly config: WhatsAppConfig,
  ) {
    this.graph = new WhatsAppGraph(config);
    this.seen = new SeenEvents(`${channelId}:whatsapp-messages`);
    this.begun = new SeenEvents(`${channelId}:whatsapp-begun`);
  }

  async start(handlers: InboundHandlers): Promise<void> {
    this.handlers = handlers;
    if (!this.config.access_token || !this.config.app_secret) {
      handlers.state({ kind: 'failed', reason: 'the access token or the app secret cannot be opened here: type them again' });
      return;
    }
    handlers.state({ kind: 'connecting' });
    // Webhooks arrive whatever this says; it tells the owner the token and the number work.
    void this.graph.number().then(
      (number) => this.handlers?.state({ kind: 'connected', detail: `${number.display_phone_number ?? this.config.phone_number_id}${number.verified_name ? ` (${number.verified_name})` : ''}; Meta delivers to ${whatsappWebhookPath(this.channelId)}` }),
      (error: unknown) => this.handlers?.state(error instanceof GraphError && error.permanent ? { kind: 'failed', reason: error.message } : { kind: 'connecting', reason: errorText(error) }),
    );
  }

  async stop(): Promise<void> {
    this.handlers = null;
    await Promise.allSettled(this.running.values());
  }

  async test(): Promise<string> {
    const number = await this.graph.number();
    return `WhatsApp ${number.display_phone_number ?? this.config.phone_number_id}${number.verified_name ? ` (${number.verified_name})` : ''}`;
  }

  /** Meta's request: the handshake, or a delivery — its signature checked before a byte of it is read. */
  async receiveWebhook(request: ChannelWebhookRequest): Promise<ChannelWebhookAnswer> {
    if (request.method === 'GET') {
      const verified = verificationAnswer(request.query, this.config.verify_token);
      return answer(verified.status, verified.body);
    }
    if (!signedByMeta(request.raw, request.headers.get('x-hub-signature-256'), this.config.app_secret)) return answer(401, { error: { code: 'unauthorized', message: 'Not signed with this channel’s app secret (X-Hub-Signature-256)' } });
    const delivery = readDelivery(request.raw, this.config.phone_number_id);
    if (!delivery) return answer(400, { error: { code: 'validation_failed', message: 'Not a WhatsApp delivery' } });
    const handlers = this.handlers;
    if (!handlers) return answer(503, { error: { code: 'unavailable', message: 'This channel is stopping: send it again' } });
    for (const status of delivery.statuses) await this.status(status);
    for (const message of delivery.messages) await this.once(message, handlers);
    return answer(200, 'EVENT_RECEIVED');
  }

  /** One message once: a redelivery while it runs waits for it; one already handled is acknowledged again. */
  private async once(message: WhatsAppMessage, handlers: InboundHandlers): Promise<void> {
    const already = this.running.get(message.id);
    if (already) return already;
    if (await this.seen.has(message.id)) return;
    // Handed over again after its handling began (a crash before it was noted): its words may be stored already.
    const retried = await this.begun.has(message.id);
    if (!retried) await this.begun.add(message.id);
    const run = this.handle(message, handlers, retried).then(() => this.seen.add(message.id));
    this.running.set(message.id, run);
    try {
      await run;
    } finally {
      this.running.delete(message.id);
    }
  }

  private async handle(message: WhatsAppMessage, handlers: InboundHandlers, retried: boolean): Promise<void> {
    if (message.type === 'reaction') return;
    const sentAt = new Date(Number(message.timestamp) * 1000);
    await this.noteWindow(message.from, sentAt);
    const sender = whatsappSender(message.from);
    const button = pressedButton(message);
    if (button) {
      const reply = (text: string) => this.graph.send(message.from, { type: 'text', text: { body: text } }).then(() => undefined);
      return handlers.button({ sender, address: message.from, data: button, answer: reply });
    }
    // Read, and "typing…" while the mind works (dismissed when the answer goes, or after 25 s).
    void this.graph.readAndType(message.id).catch((error: unknown) => console.warn(`[channels] whatsapp: not marked read: ${errorText(error)}`));
    const inbound: InboundMessage = { sender, senderName: message.senderName, address: message.from, text: messageText(message), ...(retried && { mayRepeat: true, repeatSince: sentAt }), ...(message.context?.id && { replyTo: message.context.id }) };
    const media = message.audio ?? message.image ?? message.document ?? message.video ?? message.sticker;
    if (media) {
      const fetched = await this.graph.media(media.id, media.file_size);
      const bytes = 'bytes' in fetched ? fetched.bytes : Buffer.alloc(0);
      const refused = 'refused' in fetched ? { refused: fetched.refused } : {};
      if (message.audio) inbound.voice = { name: media.voice ? 'voice-note.ogg' : (media.filename ?? 'audio'), claimedType: media.mime_type ?? 'audio/ogg', bytes, ...refused };
      else inbound.files = [{ name: media.filename ?? `${message.type}${extensionOf(media.mime_type)}`, claimedType: media.mime_type ?? null, bytes, ...refused }];
    }
    await handlers.message(inbound);
  }

  /** What became of a message we sent: into its outbox row; outside the window, it waits (or goes as a template). */
  private async status(status: WhatsAppStatus): Promise<void> {
    if (status.status !== 'sent' && status.status !== 'delivered' && status.status !== 'read' && status.status !== 'failed') return;
    const [error] = status.errors ?? [];
    if (status.status === 'failed' && error?.code === OUTSIDE_WINDOW && status.recipient_id) {
      await this.noteWindow(status.recipient_id, new Date(0));
      // With a template it goes again at once, as one; else it waits for the person to write.
      if (await holdSentOutbox(this.channelId, status.id, this.waitReason(status.recipient_id), new Date(Date.now() + (this.config.template ? 0 : WINDOW_MS)))) this.handlers?.wake?.();
      return;
    }
    const reason = error ? `WhatsApp could not deliver it (${error.code ?? '?'}): ${error.error_data?.details ?? error.message ?? error.title ?? 'no reason given'}` : undefined;
    await markOutboxDelivery(this.channelId, status.id, status.status, reason);
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    if (!(await this.windowOpen(address))) return this.sendOutsideWindow(address, payload);
    try {
      return await this.sendInWindow(address, payload);
    } catch (error) {
      if (!(error instanceof GraphError) || error.code !== OUTSIDE_WINDOW) throw error;
      await this.noteWindow(address, new Date(0));
      return this.sendOutsideWindow(address, payload);
    }
  }

  private async sendInWindow(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const parts = toWhatsAppMessages(payload.text);
    const secret = this.config.callback_secret;
    const card = payload.card && secret ? parts.pop() : undefined;
    let first: string | null = null;
    for (const [index, body] of parts.entries()) {
      const id = await this.graph.send(address, { type: 'text', text: { body: body || '…', preview_url: false } }).catch((error: unknown) => {
        if (index > 0) console.warn(`[channels] whatsapp: part ${index + 1} of ${parts.length} failed after the first was sent`);
        throw error;
      });
      first ??= id;
    }
    if (card !== undefined && secret) {
      // The card's words above its buttons when they fit (1,024 characters), else sent first.
      const fits = card.length <= BUTTON_BODY_CHARS;
      if (!fits) first ??= await this.graph.send(address, { type: 'text', text: { body: card, preview_url: false } });
      const button = (decision: 'approve' | 'always' | 'deny', title: string) => ({ type: 'reply', reply: { id: signCallback(secret, this.channelId, payload.outboxId, decision), title } });
      const buttons = [button('approve', 'Approve'), button('always', 'Always here'), button('deny', 'Deny')];
      const id = await this.graph.send(address, { type: 'interactive', interactive: { type: 'button', body: { text: fits ? card || '…' : 'Approve this?' }, action: { buttons } } });
      first ??= id;
    }
    if (payload.voice && first) await this.sendVoiceNote(address, payload.voice.sessionId, payload.text, first);
    return first;
  }

  /** Outside the 24-hour window: the owner's template with the words as its parameter, or wait for the person. */
  private async sendOutsideWindow(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const template = this.config.template;
    if (!template) throw new RecipientAwayError(this.waitReason(address), WINDOW_MS);
    const decide = payload.card ? ` Reply /approve ${payload.outboxId}, /always ${payload.outboxId} or /deny ${payload.outboxId}.` : '';
    const words = `${payload.text.replace(/\s+/g, ' ').trim()}`.slice(0, TEMPLATE_PARAMETER_CHARS - decide.length);
    return this.graph.send(address, { type: 'template', template: { name: template.name, language: { code: template.language }, components: [{ type: 'body', parameters: [{ type: 'text', text: `${words}${decide}` || '…' }] }] } });
  }

  private waitReason(address: string): string {
    return `outside WhatsApp's 24-hour window for +${address}: it waits until they write (or name a template for this channel in Settings › Channels)`;
  }

  /** The answer to a voice note as a voice note too (issue 76 §4): uploaded to WhatsApp, then sent; the text went whatever becomes of it. */
  private async sendVoiceNote(address: string, sessionId: string, text: string, textMessageId: string): Promise<void> {
    const note = await voiceNoteFor(sessionId, text);
    if (!note) return;
    try {
      const mediaId = await this.graph.upload(note.bytes, 'audio/ogg', 'reply.ogg');
      await this.graph.send(address, { type: 'audio', audio: { id: mediaId }, context: { message_id: textMessageId } });
    } catch (error) {
      console.warn(`[channels] whatsapp: the voice reply was not sent (its text was): ${errorText(error)}`);
    }
  }

  private windowKey(address: string): string {
    return `${this.channelId}:whatsapp-window:${address}`;
  }

  private async noteWindow(address: string, lastMessage: Date): Promise<void> {
    const before = Number((await readOffset(this.windowKey(address))) ?? '0');
    if (lastMessage.getTime() === 0 || lastMessage.getTime() > before) await writeOffset(this.windowKey(address), String(lastMessage.getTime()));
  }

  private async windowOpen(address: string): Promise<boolean> {
    return Date.now() - Number((await readOffset(this.windowKey(address))) ?? '0') < WINDOW_MS;
  }
}

function extensionOf(mimeType: string | undefined): string {
  return { 'image/jpeg': '.jpg', 'image/png': '.png', 'image/webp': '.webp', 'application/pdf': '.pdf', 'video/mp4': '.mp4' }[mimeType ?? ''] ?? '';
}
