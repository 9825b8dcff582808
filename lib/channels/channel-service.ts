// The channels of one app (issue 28, ARCHITECTURE §15): a runtime per enabled channel — its
// adapter connected, its inbound handled (channel-inbound.ts), its outbox drained in order by one
// sender that honours the provider's limits (a 429's retry_after holds the whole channel; other
// failures back off per message, and a permanent refusal fails that message only). Pushes come
// from the event bus (channel-outbound.ts). State and traffic counts are what the Channels page
// shows.
import { findChannel, heldReason, inboundBindings, spokenInboundBindings, listChannels, saveChannel, dueOutbox, markOutboxHeld, markOutboxRetry, markOutboxSent, nextOutboxAt, outboxCounts, type ChannelRecord } from '@/lib/store/channels-repository';
import { openChannelConfig, sealedLegacyConfig, type IrcConfig, type TelegramConfig } from './channel-config';
import type { EmailConfig } from './email-config';
import type { DiscordConfig } from './discord-config';
import type { SlackConfig } from './slack-config';
import type { WhatsAppConfig } from './whatsapp-config';
import { ChannelSendError, RecipientAwayError, type ChannelAdapter, type ChannelHost, type ChannelState, type ChannelWebhookAnswer, type ChannelWebhookRequest, type ReplyStream } from './channel-types';
import { chatMind } from './chat-mind';
import { ReplyStreams } from './reply-streams';
import { handleButton, handleMessage, type InboundContext, type InboundCounters } from './channel-inbound';
import { boundSession } from './channel-people';
import { PUSHED_EVENTS, pushEvent, pushToOwner, type OutboundContext } from './channel-outbound';
import { inSpan } from '@/lib/telemetry/traces';
import { errorText } from '@/lib/errors/error-text';

const MAX_ATTEMPTS = 8;
/** How long a message waits for a recipient who is away before it is given up. */
const HOLD_MAX_MS = 24 * 60 * 60 * 1000;
const BACKOFF_MS = [1_000, 5_000, 15_000, 60_000, 300_000];

/** A channel's client library (grammY, irc-framework, imapflow and nodemailer, discord.js, Bolt) is loaded when a channel of its kind starts or is tested, not with the app. */
export async function createAdapter(channel: Pick<ChannelRecord, 'id' | 'kind' | 'config'>): Promise<ChannelAdapter> {
  if (channel.kind === 'telegram') {
    const { TelegramChannel } = await import('./telegram-channel');
    return new TelegramChannel(channel.id, openChannelConfig(channel.id, 'telegram', channel.config as TelegramConfig));
  }
  if (channel.kind === 'discord') {
    const [{ DiscordChannel }, { openDiscordConfig }] = await Promise.all([import('./discord-channel'), import('./discord-config')]);
    return new DiscordChannel(channel.id, openDiscordConfig(channel.id, channel.config as DiscordConfig));
  }
  if (channel.kind === 'slack') {
    const [{ SlackChannel }, { openSlackConfig }] = await Promise.all([import('./slack-channel'), import('./slack-config')]);
    return new SlackChannel(channel.id, openSlackConfig(channel.id, channel.config as SlackConfig));
  }
  if (channel.kind === 'whatsapp') {
    const [{ WhatsAppChannel }, { openWhatsAppConfig }] = await Promise.all([import('./whatsapp-channel'), import('./whatsapp-config')]);
    return new WhatsAppChannel(channel.id, openWhatsAppConfig(channel.id, channel.config as WhatsAppConfig));
  }
  if (channel.kind === 'email') {
    const [{ EmailChannel }, { openEmailConfig }] = await Promise.all([import('./email-channel'), import('./email-config')]);
    return new EmailChannel(channel.id, openEmailConfig(channel.id, channel.config as EmailConfig));
  }
  const { IrcChannel } = await import('./irc-channel');
  return new IrcChannel(openChannelConfig(channel.id, 'irc', channel.config as IrcConfig));
}

export interface ChannelStatus {
  state: ChannelState;
  counters: InboundCounters & { sent: number };
  outbox: { pending: number; sent: number; failed: number };
  /** Why the newest held message waits for its recipient (the Channels page says it), or null. */
  waiting: string | null;
}

class ChannelRuntime {
  state: ChannelState = { kind: 'connecting' };
  readonly counters = { received: 0, ignored: 0, sent: 0 };
  private adapter: ChannelAdapter | null = null;
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** A message that must be retried holds the channel until then: nothing overtakes it, and a 429 holds every chat. */
  private holdUntil = 0;

  constructor(
    readonly channel: ChannelRecord,
    private readonly service: ChannelService,
  ) {}

  async start(): Promise<void> {
    const adapter = await createAdapter(this.channel);
    this.adapter = adapter;
    const context: InboundContext = {
      channel: this.channel,
      host: this.service.host,
      counters: this.counters,
      wake: () => this.wake(),
      now: () => new Date(),
      expectReply: (sessionId, content, address) => {
        if (this.adapter?.openStream) this.service.replyStreams.expect({ channelId: this.channel.id, address, sessionId, content });
      },
    };
    await adapter.start({
      message: (message) => handleMessage(context, message),
      button: (button) => handleButton(context, button),
      mind: (sender) => chatMind(this.service.host, this.channel.id, sender),
      wake: () => this.wake(),
      state: (state) => {
        this.state = state;
        if (state.kind === 'connected') this.wake();
      },
    });
    this.wake();
  }

  /** A webhook's request for this channel's adapter; null when it takes none (or is stopping). */
  webhook(request: ChannelWebhookRequest): Promise<ChannelWebhookAnswer> | null {
    return this.stopped || !this.adapter?.receiveWebhook ? null : this.adapter.receiveWebhook(request);
  }

  /** A stream for a reply to this address, where the adapter shows one while it is written. */
  openStream(address: string): ReplyStream | null {
    return this.stopped ? null : (this.adapter?.openStream?.(address) ?? null);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.draining;
    await this.adapter?.stop();
    this.state = { kind: 'stopped' };
  }

  /** Drains what is due now; one drain at a time, in id order. */
  wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((error: unknown) => console.error(`[channels] ${this.channel.name}: sending failed`, error))
      .finally(() => {
        this.draining = null;
        if (this.again) {
          this.again = false;
          this.wake();
        } else void this.scheduleNext();
      });
  }

  private async scheduleNext(): Promise<void> {
    if (this.stopped) return;
    const next = await nextOutboxAt(this.channel.id);
    if (this.timer) clearTimeout(this.timer);
    if (next) this.timer = setTimeout(() => this.wake(), Math.max(0, Math.min(Math.max(next.getTime(), this.holdUntil) - Date.now(), 2 ** 31 - 1)));
  }

  private async drain(): Promise<void> {
    for (;;) {
      const adapter = this.adapter;
      if (Date.now() < this.holdUntil || !adapter) return;
      const due = await dueOutbox(this.channel.id, new Date());
      if (due.length === 0 || this.stopped) return;
      for (const row of due) {
        if (this.stopped) return;
        try {
          const id = await inSpan({ kind: 'channel', operation: 'send', channel: this.channel.kind, channelId: this.channel.id, outboxId: row.id }, () => adapter.send(row.address, { ...row.payload, outboxId: row.id }));
          await markOutboxSent(row.id, id, new Date());
          this.counters.sent++;
          if (this.state.kind === 'rate_limited') this.state = { kind: 'connected' };
        } catch (error) {
          // Its recipient is not there as the paired identity: it waits for them; the others go on.
          if (error instanceof RecipientAwayError) {
            await markOutboxHeld(row.id, new Date(Date.now() + error.retryAfterMs!), error.message, Date.now() - row.createdAt.getTime() > HOLD_MAX_MS);
            continue;
          }
          const failure = error instanceof ChannelSendError ? error : new ChannelSendError(errorText(error), null);
          const permanent = failure.permanent || row.attempts + 1 >= MAX_ATTEMPTS;
          const waitMs = failure.retryAfterMs ?? BACKOFF_MS[Math.min(row.attempts, BACKOFF_MS.length - 1)]!;
          await markOutboxRetry(row.id, new Date(Date.now() + waitMs), failure.message, permanent);
          if (permanent) continue;
          // The channel waits for this message: later ones keep their order.
          this.holdUntil = Date.now() + waitMs;
          if (failure.retryAfterMs !== null) this.state = { kind: 'rate_limited', until: new Date(this.holdUntil).toISOString() };
          return;
        }
      }
    }
  }
}

export class ChannelService {
  private readonly runtimes = new Map<string, ChannelRuntime>();
  /** What each running turn answers (its start and end are emitted in the same process). */
  private readonly turnAnswering = new Map<string, number[]>();
  private unsubscribe: (() => void) | null = null;
  private pushing: Promise<unknown> = Promise.resolve();
  private outbound: OutboundContext | null = null;
  readonly replyStreams = new ReplyStreams((target) => this.runtimes.get(target.channelId)?.openStream(target.address) ?? null);

  /** Leased: several processes share one database and the cluster says which channels run here (reconcile). */
  private readonly leased: boolean;
  private enabledIds = new Set<string>();

  constructor(
    readonly host: ChannelHost,
    options: { leased?: boolean } = {},
  ) {
    this.leased = options.leased ?? false;
  }

  async start(): Promise<void> {
    const outbound: OutboundContext = (this.outbound = {
      session: (id) => this.host.findSession(id),
      talksTo: async (binding, session) => (await boundSession(this.host, binding))?.id === session.id,
      takeAnswerTargets: async (sessionId, turnId) => {
        const key = `${sessionId}:${turnId}`;
        const answering = this.turnAnswering.get(key) ?? [];
        this.turnAnswering.delete(key);
        return { bindings: await inboundBindings(sessionId, answering), spoken: await spokenInboundBindings(sessionId, answering) };
      },
      noteTurnStart: (sessionId, turnId, answering) => {
        if (answering.length > 0) this.turnAnswering.set(`${sessionId}:${turnId}`, answering);
      },
      // With a cluster the chat's channel may run in another process: the outbox row reaches it there.
      channelRunsHere: (channelId) => (this.leased ? this.enabledIds.has(channelId) : this.runtimes.has(channelId)),
      wake: (channelId) => this.runtimes.get(channelId)?.wake(),
      now: () => new Date(),
    });
    // In order, one event after another: a turn's start is noted before its end is pushed.
    this.unsubscribe = this.host.bus.subscribe((event) => {
      // A reply streamed where a chat shows one (Slack): its words as they come, ahead of the outbox.
      if (this.replyStreams.wants(event)) this.replyStreams.take(event);
      // Decided synchronously: a reply's token deltas (the hot path) and every event while no
      // channel is enabled cost nothing here.
      if (!PUSHED_EVENTS.has(event.type) || this.enabledIds.size === 0) return;
      this.pushing = this.pushing.then(() => pushEvent(outbound, event)).catch((error: unknown) => console.error('[channels] push failed', error));
    });
    const channels = await listChannels();
    // A Telegram token or IRC password saved before they were sealed is sealed now (red-team round 4).
    for (const channel of channels) {
      const sealed = sealedLegacyConfig(channel);
      if (!sealed) continue;
      await saveChannel({ id: channel.id, kind: channel.kind, name: channel.name, config: sealed, enabled: channel.enabled });
      channel.config = sealed as ChannelRecord['config'];
      console.log(`[channels] ${channel.name}: its ${channel.kind === 'telegram' ? 'bot token' : 'password'} is sealed at rest now`);
    }
    this.enabledIds = new Set(channels.filter((channel) => channel.enabled).map((channel) => channel.id));
    if (!this.leased) for (const channel of channels) if (channel.enabled) await this.run(channel);
  }

  /**
   * The channels the cluster gives this process (every round): the ones taken start, the ones
   * lost, disabled or deleted stop, one changed in another process restarts with its new settings;
   * each drains what other processes queued for it.
   */
  async reconcile(owned: ReadonlySet<string>): Promise<void> {
    const channels = await listChannels();
    this.enabledIds = new Set(channels.filter((channel) => channel.enabled).map((channel) => channel.id));
    const byId = new Map(channels.map((channel) => [channel.id, channel]));
    for (const [id, runtime] of this.runtimes) {
      const current = byId.get(id);
      if (owned.has(id) && current?.enabled && current.updatedAt.getTime() === runtime.channel.updatedAt.getTime()) continue;
      this.runtimes.delete(id);
      await runtime.stop();
    }
    for (const id of owned) {
      const channel = byId.get(id);
      if (channel?.enabled && !this.runtimes.has(id)) await this.run(channel);
    }
    for (const runtime of this.runtimes.values()) runtime.wake();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.pushing;
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.stop()));
    this.runtimes.clear();
  }

  /** After a channel was saved or deleted: its runtime restarts with the new settings, or goes. */
  async reload(channelId: string): Promise<void> {
    const channel = await findChannel(channelId);
    if (channel?.enabled) this.enabledIds.add(channelId);
    else this.enabledIds.delete(channelId);
    if (this.leased) return; // its holder sees the change on its next round
    await this.runtimes.get(channelId)?.stop();
    this.runtimes.delete(channelId);
    if (channel?.enabled) await this.run(channel);
  }

  private async run(channel: ChannelRecord): Promise<void> {
    const runtime = new ChannelRuntime(channel, this);
    this.runtimes.set(channel.id, runtime);
    await runtime.start();
  }

  /** A word for the owner alone, to each of their chats (a failed backup). */
  tellOwner(text: string): void {
    const outbound = this.outbound;
    if (outbound) this.pushing = this.pushing.then(() => pushToOwner(outbound, text)).catch((error: unknown) => console.error('[channels] push failed', error));
  }

  /** A provider's webhook for a channel running here (WhatsApp); null: not running in this process. */
  webhook(channelId: string, request: ChannelWebhookRequest): Promise<ChannelWebhookAnswer> | null {
    return this.runtimes.get(channelId)?.webhook(request) ?? null;
  }

  /** Wakes a channel's sender (a message queued from a route). */
  wake(channelId: string): void {
    this.runtimes.get(channelId)?.wake();
  }

  async status(channelId: string): Promise<ChannelStatus> {
    const runtime = this.runtimes.get(channelId);
    return {
      state: runtime?.state ?? (this.leased && this.enabledIds.has(channelId) ? { kind: 'elsewhere' } : { kind: 'stopped' }),
      counters: runtime?.counters ?? { received: 0, ignored: 0, sent: 0 },
      outbox: await outboxCounts(channelId),
      waiting: await heldReason(channelId),
    };
  }
}
