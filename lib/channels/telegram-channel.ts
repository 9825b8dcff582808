// A Telegram bot on grammY's Bot API client (issue 28 §1): long polling with getUpdates from the
// stored offset (a restart handles no update twice: the offset is saved after each update is
// handled), replies in HTML split at 4,096 characters, approval cards with an inline keyboard
// whose callback data is signed (a forged or tampered button is refused). The token never leaves
// this file in an error: every message is scrubbed of it.
import { scrubSecret } from './channel-secrets';
import { Api, GrammyError, HttpError, InputFile } from 'grammy';
import type { Update } from 'grammy/types';
import { readOffset, writeOffset, type OutboxPayload } from '@/lib/store/channels-repository';
import type { TelegramConfig } from './channel-config';
import { ChannelSendError, type ChannelAdapter, type InboundHandlers } from './channel-types';
import { toTelegramMessages } from './format';
import { signCallback } from './card-callback';
import { errorText } from '@/lib/errors/error-text';
import { fetchSpoken, spokenMedia } from './telegram-files';
import { voiceNoteFor } from './voice-replies';

const POLL_TIMEOUT_S = 25;
const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000];

export class TelegramChannel implements ChannelAdapter {
  private readonly api: Api;
  private readonly stopController = new AbortController();
  private polling: Promise<void> = Promise.resolve();
  /** The bot itself (getMe): who a group message addresses with @username or a reply. */
  private me: { id: number; username?: string } | null = null;

  constructor(
    private readonly channelId: string,
    private readonly config: TelegramConfig,
  ) {
    this.api = new Api(config.token, { apiRoot: config.api_root });
  }

  /** Any text from the provider, with the token taken out. */
  private scrub(text: string): string {
    return scrubSecret(text, this.config.token);
  }

  async test(): Promise<string> {
    try {
      const me = await this.api.getMe();
      return `@${me.username} (${me.first_name})`;
    } catch (error) {
      throw new Error(this.describe(error));
    }
  }

  async start(handlers: InboundHandlers): Promise<void> {
    this.polling = this.poll(handlers);
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    await this.polling;
  }

  private async poll(handlers: InboundHandlers): Promise<void> {
    const signal = this.stopController.signal;
    let failures = 0;
    let connected = false;
    // The stored offset once, then this loop's own (it writes each one it handles).
    let offset: number | undefined;
    let offsetRead = false;
    handlers.state({ kind: 'connecting' });
    while (!signal.aborted) {
      try {
        // A long poll answers only when something comes: getMe says at once that the bot is reachable.
        if (!offsetRead) {
          const stored = await readOffset(this.channelId);
          offset = stored ? Number(stored) + 1 : undefined;
          offsetRead = true;
        }
        if (!connected) {
          const me = await this.api.getMe(signal as Parameters<Api['getMe']>[0]);
          this.me = { id: me.id, username: me.username };
          handlers.state({ kind: 'connected', detail: `@${me.username}` });
          connected = true;
        }
        const updates = await this.api.getUpdates({ offset, timeout: POLL_TIMEOUT_S, allowed_updates: ['message', 'callback_query'] }, signal as Parameters<Api['getUpdates']>[1]);
        failures = 0;
        for (const update of updates) {
          if (signal.aborted) return;
          await this.handle(update, handlers).catch((error) => console.error(`[channels] telegram update ${update.update_id} failed:`, this.describe(error)));
          await writeOffset(this.channelId, String(update.update_id)); // handled: never again
          offset = update.update_id + 1;
        }
      } catch (error) {
        if (signal.aborted) return;
        connected = false;
        const retryAfter = error instanceof GrammyError ? error.parameters.retry_after : undefined;
        const waitMs = retryAfter ? retryAfter * 1000 : RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
        failures++;
        const reason = this.describe(error);
        if (error instanceof GrammyError && error.error_code === 401) {
          handlers.state({ kind: 'failed', reason: `the token was refused: ${reason}` });
          return;
        }
        handlers.state({ kind: 'connecting', retryAt: new Date(Date.now() + waitMs).toISOString(), reason });
        await sleep(waitMs, signal);
      }
    }
  }

  private async handle(update: Update, handlers: InboundHandlers): Promise<void> {
    const message = update.message;
    if (message?.text && message.from && !message.from.is_bot) {
      if (message.chat.type !== 'private' && message.chat.type !== 'group' && message.chat.type !== 'supergroup') return;
      const from = message.from;
      // In a group: the group's own conversation (issue 42 §5), never a member's private one.
      const group =
        message.chat.type === 'private'
          ? undefined
          : {
              id: String(message.chat.id),
              title: ('title' in message.chat && message.chat.title) || `group ${message.chat.id}`,
              addressed: (!!this.me?.username && message.text.toLowerCase().includes(`@${this.me.username.toLowerCase()}`)) || (!!this.me && message.reply_to_message?.from?.id === this.me.id),
            };
      await handlers.message({
        sender: `telegram:${from.id}`,
        senderName: from.username ? `@${from.username}` : [from.first_name, from.last_name].filter(Boolean).join(' '),
        address: String(message.chat.id),
        text: this.me?.username ? message.text.replace(new RegExp(`@${this.me.username}\\b`, 'gi'), '').trim() || message.text : message.text,
        ...(message.reply_to_message && { replyTo: String(message.reply_to_message.message_id) }),
        ...(group && { group }),
      });
      return;
    }
    // A voice note in a private chat (issue 76 §2): its bytes fetched here, heard by channel-inbound.ts.
    const spoken = message?.from && !message.from.is_bot && message.chat.type === 'private' ? spokenMedia(message) : null;
    if (message?.from && spoken) {
      const from = message.from;
      await handlers.message({
        sender: `telegram:${from.id}`,
        senderName: from.username ? `@${from.username}` : [from.first_name, from.last_name].filter(Boolean).join(' '),
        address: String(message.chat.id),
        text: message.caption ?? '',
        voice: await fetchSpoken(this.api, this.config, spoken, (text) => this.scrub(text)),
      });
      return;
    }
    const query = update.callback_query;
    if (query?.data && query.message) {
      await handlers.button({
        sender: `telegram:${query.from.id}`,
        address: String(query.message.chat.id),
        data: query.data,
        answer: async (text) => {
          await this.api.answerCallbackQuery(query.id, { text: text.slice(0, 200) }).catch(() => undefined);
        },
      });
    }
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const parts = toTelegramMessages(payload.text);
    let first: string | null = null;
    for (const [index, html] of parts.entries()) {
      const last = index === parts.length - 1;
      const keyboard =
        last && payload.card && this.config.callback_secret
          ? {
              inline_keyboard: [
                [
                  { text: 'Approve', callback_data: signCallback(this.config.callback_secret, this.channelId, payload.outboxId, 'approve') },
                  { text: 'Deny', callback_data: signCallback(this.config.callback_secret, this.channelId, payload.outboxId, 'deny') },
                ],
                [{ text: 'Always for this session', callback_data: signCallback(this.config.callback_secret, this.channelId, payload.outboxId, 'always') }],
              ],
            }
          : undefined;
      try {
        const sent = await this.api.sendMessage(address, html || '…', { parse_mode: 'HTML', link_preview_options: { is_disabled: true }, ...(keyboard && { reply_markup: keyboard }) });
        first ??= String(sent.message_id);
      } catch (error) {
        if (index > 0) console.warn(`[channels] telegram: part ${index + 1} of ${parts.length} failed after the first was sent`);
        throw this.sendError(error);
      }
    }
    if (payload.voice && first) await this.sendVoiceNote(address, payload.voice.sessionId, payload.text, Number(first));
    return first;
  }

  /** The answer to a voice note as a voice note too, under its text (issue 76 §4); the text is sent whatever becomes of it. */
  private async sendVoiceNote(address: string, sessionId: string, text: string, textMessageId: number): Promise<void> {
    const note = await voiceNoteFor(sessionId, text);
    if (!note) return;
    await this.api
      .sendVoice(address, new InputFile(note.bytes, 'reply.ogg'), { reply_parameters: { message_id: textMessageId, allow_sending_without_reply: true } })
      .catch((error: unknown) => console.warn(`[channels] telegram: the voice reply was not sent (its text was): ${this.describe(error)}`));
  }

  /** A decided card loses its buttons and says what became of it. */
  async markDecided(address: string, messageId: string, note: string): Promise<void> {
    await this.api.editMessageReplyMarkup(address, Number(messageId), { reply_markup: { inline_keyboard: [] } }).catch(() => undefined);
    await this.api.sendMessage(address, note, { reply_parameters: { message_id: Number(messageId), allow_sending_without_reply: true } }).catch(() => undefined);
  }

  private sendError(error: unknown): ChannelSendError {
    const reason = this.describe(error);
    if (error instanceof GrammyError) {
      if (error.error_code === 429) return new ChannelSendError(reason, (error.parameters.retry_after ?? 1) * 1000);
      if (error.error_code >= 500) return new ChannelSendError(reason, null);
      return new ChannelSendError(reason, null, true); // 400/403: the chat is gone or the text refused
    }
    return new ChannelSendError(reason, null);
  }

  private describe(error: unknown): string {
    if (error instanceof GrammyError) return this.scrub(`${error.error_code}: ${error.description}`);
    if (error instanceof HttpError) return this.scrub(`network: ${String((error.error as Error)?.message ?? error.message)}`);
    return this.scrub(errorText(error));
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
