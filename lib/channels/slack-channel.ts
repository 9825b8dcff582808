// A Slack app on Bolt in Socket Mode (issue 62, ARCHITECTURE §15): no public URL — the app-level
// token opens a WebSocket to Slack, the bot token calls the Web API. A DM with the app is a person's
// conversation (pairing as on every channel); a channel the app is in is a group (channel-groups.ts:
// joined with `/agentcsd join <persona>`, answering when mentioned — `app_mention` — or every
// message once told `/agentcsd answer all`), and replies go in the thread of the message that
// addressed it. `/agentcsd status|pause|resume|stop|new` answers only its sender (ephemeral).
// Replies are mrkdwn split at 4,000 characters; a card is a Block Kit message whose buttons carry
// signed values (card-callback.ts), updated to say who decided. Files a person shares are fetched
// with the bot token from Slack's file host only, then pass the upload checks. A 429 holds the
// channel for its Retry-After (the outbox keeps the order); events are acknowledged only once
// recorded (slack-receiver.ts).
import { App } from '@slack/bolt';
import { ErrorCode, WebClient, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { readOffset, writeOffset, type OutboxPayload } from '@/lib/store/channels-repository';
import { findGroup } from '@/lib/store/channel-groups-repository';
import { ChannelSendError, type ChannelAdapter, type InboundHandlers, type InboundMessage, type ReplyStream } from './channel-types';
import { signCallback } from './card-callback';
import { scrubSecret } from './channel-secrets';
import { toSlackMessages } from './format';
import type { SlackConfig } from './slack-config';
import { AckAfterReceiver, quietLogger } from './slack-receiver';
import { slackFiles, type SlackFile } from './slack-files';
import { slackAssistant } from './slack-assistant';
import { SlackReplyStream } from './slack-stream';
import { errorText } from '@/lib/errors/error-text';

const RETRY_MS = [1_000, 5_000, 15_000, 30_000, 60_000];
/** Web API errors that mean the tokens will not work until the owner changes them. */
const REFUSED = /invalid_auth|not_authed|account_inactive|token_revoked|token_expired|no_permission|missing_scope/;
/** The chat commands a DM takes; in a channel only join, leave and answer. */
const DM_COMMANDS = /^(status|pause|resume|stop|new|answer|approve|always|deny)\b/i;
const GROUP_COMMANDS = /^(join|leave|answer)\b/i;
/** A card's section text: Block Kit takes at most 3,000 characters a section. */
const CARD_SECTION_CHARS = 3000;

interface SlackMessageEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  channel_type?: string;
  files?: SlackFile[];
}

export class SlackChannel implements ChannelAdapter {
  private app: App | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private botUserId = '';
  private readonly names = new Map<string, string>();
  /** The thread each address answers in now ('' for none): the offsets' values, read once each. */
  private readonly threads = new Map<string, string>();
  /** A DM thread's reply being streamed, until the outbox's row for it comes. */
  private readonly streams = new Map<string, SlackReplyStream>();

  /** The Web API with the bot token: a 429 is handed to the outbox (which holds the channel), nothing retried behind its back. */
  private readonly web: WebClient;

  constructor(
    private readonly channelId: string,
    private readonly config: SlackConfig,
  ) {
    this.web = new WebClient(config.bot_token, { slackApiUrl: config.api_root, rejectRateLimitedCalls: true, retryConfig: { retries: 0 }, logger: quietLogger((text) => this.scrub(text)) });
  }

  private scrub(text: string): string {
    return scrubSecret(scrubSecret(text, this.config.bot_token), this.config.app_token);
  }

  async test(): Promise<string> {
    if (!this.config.bot_token || !this.config.app_token) throw new Error('a token cannot be opened (sealed under another secret key, or never set): enter both again');
    try {
      const me = await this.web.auth.test();
      return `@${me.user} in ${me.team}`;
    } catch (error) {
      throw new Error(this.scrub(describe(error)));
    }
  }

  async start(handlers: InboundHandlers): Promise<void> {
    this.stopped = false;
    void this.connect(handlers, 0);
  }

  private async connect(handlers: InboundHandlers, failures: number): Promise<void> {
    if (this.stopped) return;
    handlers.state({ kind: 'connecting' });
    const logger = quietLogger((text) => this.scrub(text));
    const receiver = new AckAfterReceiver({
      channelId: this.channelId,
      appToken: this.config.app_token,
      apiRoot: this.config.api_root,
      logger,
      onState: (state, reason) => handlers.state(state === 'connected' ? { kind: 'connected', detail: `@${this.names.get(this.botUserId) ?? this.botUserId}` } : { kind: 'connecting', ...(reason && { reason }) }),
    });
    const app = new App({
      token: this.config.bot_token,
      receiver,
      logger,
      deferInitialization: true,
      clientOptions: { slackApiUrl: this.config.api_root, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } },
    });
    // A listener's failure reaches the receiver: the event stays unacknowledged and comes again.
    app.error(async (error) => {
      throw error;
    });
    this.listen(app, handlers);
    this.app = app;
    try {
      await app.init();
      const me = await app.client.auth.test();
      this.botUserId = String(me.user_id ?? '');
      this.names.set(this.botUserId, String(me.user ?? this.botUserId));
      await app.start();
    } catch (error) {
      await app.stop().catch(() => {});
      if (this.stopped) return;
      const reason = this.scrub(describe(error));
      if (REFUSED.test(reason)) return handlers.state({ kind: 'failed', reason: `Slack refused the token (${reason})` });
      const waitMs = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
      handlers.state({ kind: 'connecting', retryAt: new Date(Date.now() + waitMs).toISOString(), reason });
      this.retryTimer = setTimeout(() => void this.connect(handlers, failures + 1), waitMs);
    }
  }

  private listen(app: App, handlers: InboundHandlers): void {
    // A DM thread (the AI side panel; a reply to a question) goes through the Assistant first.
    app.assistant(
      slackAssistant({
        mind: async (sender) => (await handlers.mind?.(sender)) ?? null,
        message: (event, retryNum) => this.onDirect(app, event as SlackMessageEvent, handlers, retryNum),
        warn: (what, error) => console.warn(`[channels] slack: ${what}: ${this.scrub(describe(error))}`),
      }),
    );
    app.event('message', async ({ event, context }) => {
      const message = event as unknown as SlackMessageEvent;
      if (message.subtype && message.subtype !== 'file_share' && message.subtype !== 'thread_broadcast') return; // edits, joins, bots
      if (!message.user || message.bot_id || message.user === this.botUserId) return;
      if (message.channel_type === 'im') return this.onDirect(app, message, handlers, context.retryNum);
      // A mention arrives as app_mention too: handled there, once.
      if ((message.text ?? '').includes(`<@${this.botUserId}>`)) return;
      const address = `channel:${message.channel}`;
      // Read unaddressed only where the group answers every message; its reply goes in that message's thread.
      if ((await findGroup(this.channelId, address))?.answer !== 'all') return;
      await this.onChannel(app, message, handlers, false, context.retryNum);
    });
    app.event('app_mention', async ({ event, context }) => {
      const message = event as unknown as SlackMessageEvent;
      if (!message.user || message.user === this.botUserId) return;
      await this.onChannel(app, message, handlers, true, context.retryNum);
    });
    app.command('/agentcsd', async ({ command, ack }) => {
      const text = command.text.trim();
      const direct = command.channel_id.startsWith('D');
      if (!(direct ? DM_COMMANDS : GROUP_COMMANDS).test(text)) {
        return ack({ response_type: 'ephemeral', text: direct ? 'Usage: /agentcsd status | pause | resume | stop | new [persona]' : 'In a channel: /agentcsd join <persona> | leave | answer all|mentions. The rest in a DM with the app.' });
      }
      const sender = `slack:${command.user_id}`;
      const address = direct ? `im:${command.channel_id}` : `channel:${command.channel_id}`;
      await handlers.message({
        sender,
        senderName: await this.nameOf(app, command.user_id),
        address,
        text: `/${text}`,
        commandReplyTo: `ephemeral:${command.channel_id}:${command.user_id}`,
        ...(!direct && { group: { id: address, title: `#${command.channel_name}`, addressed: true } }),
      });
      await ack();
    });
    app.action(/^card_(approve|always|deny)$/, async ({ ack, body, action, client }) => {
      await ack(); // Slack waits 3 s; the decision follows
      if (body.type !== 'block_actions' || action.type !== 'button' || !body.channel || !body.message) return;
      const user = body.user.id;
      const channel = body.channel.id;
      const message = body.message as { ts: string; text?: string; blocks?: { type: string }[] };
      await handlers.button({
        sender: `slack:${user}`,
        address: channel.startsWith('D') ? `im:${channel}` : `channel:${channel}`,
        data: action.value ?? '',
        answer: async (text) => void (await client.chat.postEphemeral({ channel, user, text })),
        settle: async (text) => {
          const kept = (message.blocks ?? []).filter((block) => block.type !== 'actions');
          const line = `${text.replace(/^Card \d+: /, '')} — by <@${user}>`;
          await client.chat.update({ channel, ts: message.ts, text: `${message.text ?? ''}\n${line}`, blocks: [...kept, { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }] as never });
        },
      });
    });
  }

  private async onDirect(app: App, event: SlackMessageEvent, handlers: InboundHandlers, retryNum?: number): Promise<void> {
    const address = `im:${event.channel}`;
    // A reply in a thread (a task's question, the AI side panel) is answered in that thread.
    await this.rememberThread(address, event.thread_ts ?? null);
    await handlers.message({
      ...(await this.inbound(app, event, address, retryNum)),
      text: event.text ?? '',
      ...(event.thread_ts && event.thread_ts !== event.ts && { replyTo: event.thread_ts }),
    });
  }

  private async onChannel(app: App, event: SlackMessageEvent, handlers: InboundHandlers, addressed: boolean, retryNum?: number): Promise<void> {
    const address = `channel:${event.channel}`;
    await this.rememberThread(address, event.thread_ts ?? event.ts);
    await handlers.message({
      ...(await this.inbound(app, event, address, retryNum)),
      text: (event.text ?? '').replace(new RegExp(`<@${this.botUserId}>\\s*`, 'g'), '').trim(),
      group: { id: address, title: await this.channelTitle(app, event.channel), addressed },
    });
  }

  /** What every message carries: who, where, its files, and — handed over again — since when its words count as it. */
  private async inbound(app: App, event: SlackMessageEvent, address: string, retryNum?: number): Promise<Omit<InboundMessage, 'text'>> {
    const files = event.files?.length ? await slackFiles(event.files, this.config) : [];
    return {
      sender: `slack:${event.user}`,
      senderName: await this.nameOf(app, event.user!),
      address,
      ...(files.length > 0 && { files }),
      ...(retryNum && { mayRepeat: true, repeatSince: new Date(Number(event.ts) * 1000 - 1_000) }),
    };
  }

  private threadKey(address: string): string {
    return `${this.channelId}:slack-thread:${address}`;
  }

  /** Where replies to `address` go from now on: written through to the offsets (a restart keeps it), only when it changes. */
  private async rememberThread(address: string, ts: string | null): Promise<void> {
    if ((await this.threadOf(address)) === (ts ?? '')) return;
    await writeOffset(this.threadKey(address), ts ?? '');
    this.threads.set(address, ts ?? '');
  }

  private async threadOf(address: string): Promise<string> {
    const known = this.threads.get(address);
    if (known !== undefined) return known;
    const stored = (await readOffset(this.threadKey(address))) ?? '';
    this.threads.set(address, stored);
    return stored;
  }

  private async nameOf(app: App, user: string): Promise<string> {
    const known = this.names.get(user);
    if (known) return known;
    const info = await app.client.users.info({ user }).catch(() => null);
    const name = `@${info?.user?.profile?.display_name || info?.user?.name || user}`;
    if (this.names.size > 5_000) this.names.clear();
    this.names.set(user, name);
    return name;
  }

  private async channelTitle(app: App, channel: string): Promise<string> {
    const key = `#${channel}`;
    const known = this.names.get(key);
    if (known) return known;
    const info = await app.client.conversations.info({ channel }).catch(() => null);
    const title = `#${info?.channel?.name ?? channel}`;
    this.names.set(key, title);
    return title;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const app = this.app;
    this.app = null;
    await app?.stop().catch(() => {});
  }

  /** A DM thread's reply streams (Slack's AI side panel, a reply in a thread); elsewhere the outbox posts it whole. */
  openStream(address: string): ReplyStream | null {
    const thread = this.threads.get(address);
    if (!this.app || !address.startsWith('im:') || !thread) return null;
    const stream = new SlackReplyStream(this.web, address.slice('im:'.length), thread, (error) => console.warn(`[channels] slack: the reply is posted whole, its stream failed: ${this.scrub(describe(error))}`));
    this.streams.set(address, stream);
    return stream;
  }

  /** The reply was streamed already (the same words, the stream complete): the streamed message is it. */
  private async streamed(address: string, text: string): Promise<string | null> {
    const stream = this.streams.get(address);
    if (!stream?.isClosed()) return null;
    this.streams.delete(address);
    const outcome = await stream.outcome;
    return outcome.ts && outcome.text.trim() === text.trim() ? outcome.ts : null;
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const web = this.web;
    const streamed = payload.card ? null : await this.streamed(address, payload.text);
    if (streamed) return streamed;
    const [kind, channel, user] = address.split(':');
    if (kind === 'ephemeral') {
      await this.call(() => web.chat.postEphemeral({ channel: channel!, user: user!, text: toSlackMessages(payload.text)[0]!.slice(0, 4_000) }), 0, 1);
      return null;
    }
    if (kind === 'channel' && payload.card) throw new ChannelSendError('a card is never sent to a channel', null, true);
    const thread = (await this.threadOf(address)) || undefined;
    const parts = toSlackMessages(payload.text, payload.card ? CARD_SECTION_CHARS : undefined);
    let first: string | null = null;
    for (const [index, text] of parts.entries()) {
      const card = payload.card && index === parts.length - 1;
      const sent = await this.call(
        () => web.chat.postMessage({ channel: channel!, text: text || ' ', mrkdwn: true, unfurl_links: false, ...(thread && { thread_ts: thread }), ...(card && { blocks: this.cardBlocks(text, payload.outboxId) }) }),
        index,
        parts.length,
      );
      first ??= sent.ts ?? null;
    }
    return first;
  }

  /** One Web API call: a 429 waits its Retry-After, other refusals are final; part of a reply out means the rest is given up. */
  private async call<Result>(run: () => Promise<Result>, index: number, of: number): Promise<Result> {
    try {
      return await run();
    } catch (error) {
      const reason = this.scrub(describe(error));
      if (index > 0) throw new ChannelSendError(`${index} of ${of} messages sent; the rest not: ${reason}`, null, true);
      const code = (error as { code?: string }).code;
      if (code === ErrorCode.RateLimitedError) throw new ChannelSendError(reason, Math.max(1, (error as WebAPIRateLimitedError).retryAfter) * 1000);
      if (code === ErrorCode.PlatformError) throw new ChannelSendError(reason, null, true); // channel_not_found, is_archived, not_in_channel…
      throw new ChannelSendError(reason, 15_000);
    }
  }

  private cardBlocks(text: string, outboxId: number) {
    const secret = this.config.callback_secret ?? '';
    const button = (label: string, decision: 'approve' | 'always' | 'deny', style?: 'primary' | 'danger') => ({
      type: 'button' as const,
      text: { type: 'plain_text' as const, text: label },
      action_id: `card_${decision}`,
      value: signCallback(secret, this.channelId, outboxId, decision),
      ...(style && { style }),
    });
    return [
      { type: 'section' as const, text: { type: 'mrkdwn' as const, text } },
      { type: 'actions' as const, block_id: `card-${outboxId}`, elements: [button('Approve', 'approve', 'primary'), button('Always for this session', 'always'), button('Deny', 'deny', 'danger')] },
    ];
  }
}

function describe(error: unknown): string {
  const platform = error as Partial<WebAPIPlatformError>;
  if (platform.code === ErrorCode.PlatformError && platform.data) return `${platform.data.error}`;
  return errorText(error);
}
