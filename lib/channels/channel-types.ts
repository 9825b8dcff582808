// The one contract every provider's adapter keeps (ARCHITECTURE §15), and what the channels
// need of the app around them (the orchestrator wires it; this room never imports it).
import type { Actor } from '@/lib/people/rights';
import type { EventBus } from '@/lib/mind/events';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { OutboxPayload } from '@/lib/store/channels-repository';

/** Who wrote: `sender` is the identity pairing binds (stable, unforgeable by the sender); `address` where answers go. */
export interface InboundMessage {
  sender: string;
  senderName: string;
  address: string;
  text: string;
  /** The provider's id of the message this one replies to (Telegram), if any. */
  replyTo?: string;
  /**
   * Written in a group chat (issue 42 §5): `address` is the group's; `addressed` says whether the
   * agent was addressed (an @mention of the bot, a reply to it).
   */
  group?: { id: string; title: string; addressed: boolean };
  /** Another party's words (a mail's whole content, §20): the turn that reads them asks before anything goes out. */
  untrustedSource?: string;
  /** The sender is not proven (a mail without an aligned DKIM signature): why. Never a conversation. */
  unverified?: string;
  /** The provider may hand it over again after a crash (its text names it uniquely): delivered once. */
  mayRepeat?: boolean;
  /** With `mayRepeat`: when the provider first had it (a Slack message's own time) — the same words since then are it. */
  repeatSince?: Date;
  /** Where a command's answer goes instead of the chat (Slack's slash command: seen by its sender only). */
  commandReplyTo?: string;
  /** A voice note (issue 76 §2): transcribed into `text` by channel-inbound.ts, the recording kept beside it. */
  voice?: { name: string; claimedType: string | null; bytes: Buffer; seconds?: number; /** Not fetched, and why. */ refused?: string };
  /** Files that came with it (a mail's attachments): kept in the session through the upload checks. */
  files?: { name: string; claimedType: string | null; bytes: Buffer; /** Not fetched, and why (the adapter refused it). */ refused?: string }[];
}

/** A button pressed under a card (Telegram's callback query). */
export interface InboundButton {
  sender: string;
  address: string;
  data: string;
  /** Tells the person what came of it (a toast under the button). */
  answer(text: string): Promise<void>;
  /** The card was decided (by `decidedBy`): the provider's message says so, its buttons gone (Slack). */
  settle?(text: string): Promise<void>;
}

export interface InboundHandlers {
  message(message: InboundMessage): Promise<void>;
  button(button: InboundButton): Promise<void>;
  /** Connection state for the Channels page. */
  state(state: ChannelState): void;
  /** What the sender's own conversation shows of its mind now (Slack's side panel), or null for a stranger. */
  mind?(sender: string): Promise<ChatMind | null>;
  /** The outbox has something due again (a message the provider handed back: WhatsApp's window). */
  wake?(): void;
}

/** What a chat may show of the mind it talks to while it works (chat-mind.ts; Slack's side panel). */
export interface ChatMind {
  persona: string;
  mood: string | null;
  criteria: string | null;
  prompts: { title: string; message: string }[];
}

/** A reply shown while it is written (Slack's chat streaming): the turn's words as they come. */
export interface ReplyStream {
  append(text: string): void;
  /** The turn ended: the outbox's row for the same words then sends nothing twice. */
  close(): void;
}

export type ChannelState =
  | { kind: 'connecting'; retryAt?: string; reason?: string }
  | { kind: 'connected'; detail?: string }
  | { kind: 'rate_limited'; until: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'stopped' }
  /** Connected by another process of the cluster. */
  | { kind: 'elsewhere' };

/** A provider's refusal to send now: try again after `retryAfterMs`; `permanent` never. */
export class ChannelSendError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
    readonly permanent = false,
  ) {
    super(message);
    this.name = 'ChannelSendError';
  }
}

/**
 * The recipient is not there as the paired identity (an IRC nick held by someone else, or by
 * nobody): the message waits for them, without holding the channel or counting as a failure.
 */
export class RecipientAwayError extends ChannelSendError {
  constructor(message: string, retryAfterMs: number) {
    super(message, retryAfterMs);
    this.name = 'RecipientAwayError';
  }
}

export interface ChannelAdapter {
  /** Connects and keeps connecting (with backoff) until stop(); inbound goes to the handlers. */
  start(handlers: InboundHandlers): Promise<void>;
  stop(): Promise<void>;
  /** Sends one outbox message; the provider's id of the (first) message sent. */
  send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null>;
  /** Proves the settings work without starting: the bot's name, the server's welcome. */
  test(): Promise<string>;
  /** A stream for the reply a turn writes to this address, where the provider shows one (null: the outbox posts it whole). */
  openStream?(address: string): ReplyStream | null;
  /** A provider that delivers by webhook (WhatsApp): the request as it came, answered only once what it holds is recorded. */
  receiveWebhook?(request: ChannelWebhookRequest): Promise<ChannelWebhookAnswer>;
}

/** A webhook's request to a channel (`/api/channels/:id/<kind>`): nothing in it is trusted before the adapter checked it. */
export interface ChannelWebhookRequest {
  method: string;
  query: URLSearchParams;
  headers: Headers;
  raw: Uint8Array;
}

export interface ChannelWebhookAnswer {
  status: number;
  body: string;
  contentType: 'text/plain' | 'application/json';
}

/** What the channels ask of the app: the same calls as the page's socket and buttons. */
export interface ChannelHost {
  bus: EventBus;
  sendUserMessage(sessionId: string, text: string, options?: { untrustedSource?: string; fileIds?: readonly string[] }): Promise<MessageRecord>;
  /** Decided by `actor` if the rights authority lets them (lib/people/rights.ts). */
  decideToolCall(input: { id: string; decision: 'approve' | 'deny'; reason?: string; remember?: 'session'; args_hash: string; session_id: string }, actor: Actor): Promise<
    { ok: true } | { ok: false; code: string; message: string; status?: string }
  >;
  answerTask(sessionId: string, text: string): Promise<boolean>;
  pauseSession(sessionId: string): Promise<void>;
  resumeSession(sessionId: string): Promise<void>;
  stopTurn(sessionId: string): Promise<boolean>;
  /** A new session of the persona, the conversation of these people (issue 42). */
  createSession(persona: string, people: readonly string[], name?: string): Promise<SessionRecord>;
  findSession(sessionId: string): Promise<SessionRecord | null>;
}
