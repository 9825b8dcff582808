// Channels as rows (issue 28, ARCHITECTURE §15): the connections, the pairings strangers ask for,
// the senders bound to sessions, each channel's last handled update, and the outbox. Pairing
// approval and outbox state move by compare-and-set: a code is approved once, a message is
// confirmed once.
import { getDb } from './db';

export type ChannelKind = 'telegram' | 'irc' | 'email' | 'discord' | 'slack' | 'whatsapp';
export type PushMode = 'all' | 'spontaneous' | 'cards';

export interface ChannelRecord {
  id: string;
  kind: ChannelKind;
  name: string;
  /** The provider's settings as stored, secrets included: never hand this to a browser. */
  config: unknown;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface PairingRecord {
  code: string;
  channelId: string;
  sender: string;
  senderName: string;
  address: string;
  firstText: string;
  expiresAt: Date;
  approvedAt: Date | null;
  createdAt: Date;
}

export interface QuietHours {
  from: string;
  to: string;
  time_zone: string;
}

export interface BindingRecord {
  id: string;
  channelId: string;
  sender: string;
  senderName: string;
  address: string;
  sessionId: string | null;
  persona: string | null;
  push: PushMode;
  quietHours: QuietHours | null;
  createdAt: Date;
  /** The person this sender is (issue 42); null only for a binding made before people existed. */
  personId: string | null;
  /** Their voice notes are answered with a voice note too (issue 76 §4), where the chat takes one. */
  voiceReplies: boolean;
}

export interface OutboxPayload {
  text: string;
  /** An approval card: its buttons (Telegram) or `!approve <outbox id>` (IRC) decide this call, with these arguments. */
  card?: {
    callId: string;
    /** The session the chat is bound to (the card is decided only from a chat bound to it). */
    sessionId: string;
    argsHash: string;
    /** A specialist's call shown in its parent's chat: the session the call belongs to. */
    callSessionId?: string;
    /** Only the owner decides it (a memory shared with everyone, issue 42): sent to no one else. */
    ownerOnly?: boolean;
  };
  /** A task's question: a reply to this message answers it. */
  question?: { taskId: string; sessionId: string };
  /** An answer to a voice note: said as a voice note too, counted on this session's allowances (issue 76 §4). */
  voice?: { sessionId: string };
}

export interface OutboxRecord {
  id: number;
  channelId: string;
  address: string;
  payload: OutboxPayload;
  state: 'pending' | 'sent' | 'failed';
  providerMessageId: string | null;
  attempts: number;
  nextAt: Date;
  error: string | null;
  createdAt: Date;
  sentAt: Date | null;
  /** What the provider said became of it once sent (WhatsApp): delivered, read, or failed and why. */
  delivery: string | null;
}

type ChannelRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['channel']['findUniqueOrThrow']>>;
type BindingRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['channelBinding']['findUniqueOrThrow']>>;
type OutboxRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['channelOutbox']['findUniqueOrThrow']>>;

const channelRecord = (row: ChannelRow): ChannelRecord => ({ ...row, kind: row.kind as ChannelKind, config: JSON.parse(row.config) as unknown });
const bindingRecord = (row: BindingRow): BindingRecord => ({
  ...row,
  push: row.push as PushMode,
  quietHours: row.quietHours ? (JSON.parse(row.quietHours) as QuietHours) : null,
});
const outboxRecord = (row: OutboxRow): OutboxRecord => ({ ...row, state: row.state as OutboxRecord['state'], payload: JSON.parse(row.payload) as OutboxPayload });

// ── Channels ───────────────────────────────────────────────────────────────────────────────

export async function listChannels(): Promise<ChannelRecord[]> {
  return (await (await getDb()).channel.findMany({ orderBy: { createdAt: 'asc' } })).map(channelRecord);
}

export async function findChannel(id: string): Promise<ChannelRecord | null> {
  const row = await (await getDb()).channel.findUnique({ where: { id } });
  return row ? channelRecord(row) : null;
}

export async function saveChannel(input: { id: string; kind: ChannelKind; name: string; config: unknown; enabled: boolean }): Promise<ChannelRecord> {
  const data = { kind: input.kind, name: input.name, config: JSON.stringify(input.config), enabled: input.enabled, updatedAt: new Date() };
  const row = await (await getDb()).channel.upsert({ where: { id: input.id }, create: { id: input.id, ...data }, update: data });
  return channelRecord(row);
}

export async function deleteChannel(id: string): Promise<boolean> {
  return (await (await getDb()).channel.deleteMany({ where: { id } })).count > 0;
}

// ── Pairings ───────────────────────────────────────────────────────────────────────────────

export async function insertPairing(input: Omit<PairingRecord, 'approvedAt' | 'createdAt'> & { createdAt?: Date }): Promise<PairingRecord> {
  return (await getDb()).channelPairing.create({ data: input });
}

/** The sender's pairing still waiting, if any (one code per sender at a time). */
export async function findOpenPairing(channelId: string, sender: string, now: Date): Promise<PairingRecord | null> {
  return (await getDb()).channelPairing.findFirst({ where: { channelId, sender, approvedAt: null, expiresAt: { gt: now } } });
}

export async function listOpenPairings(channelId: string, now: Date): Promise<PairingRecord[]> {
  return (await getDb()).channelPairing.findMany({ where: { channelId, approvedAt: null, expiresAt: { gt: now } }, orderBy: { createdAt: 'asc' } });
}

/** Codes the channel gave since `since` (approved, expired or open): its pace of new strangers. */
export async function countPairingsSince(channelId: string, since: Date): Promise<number> {
  return (await getDb()).channelPairing.count({ where: { channelId, createdAt: { gte: since } } });
}

/** Withdraws unapproved codes of the channel (all, or the one given): the number withdrawn. */
export async function deleteOpenPairings(channelId: string, code?: string): Promise<number> {
  return (await (await getDb()).channelPairing.deleteMany({ where: { channelId, approvedAt: null, ...(code && { code }) } })).count;
}

/** Approves a code of this channel once, while it is valid: null for an unknown, expired or used code. */
export async function approvePairing(channelId: string, code: string, now: Date): Promise<PairingRecord | null> {
  const db = await getDb();
  const { count } = await db.channelPairing.updateMany({ where: { code, channelId, approvedAt: null, expiresAt: { gt: now } }, data: { approvedAt: now } });
  return count === 1 ? db.channelPairing.findUnique({ where: { code } }) : null;
}

// ── Bindings ───────────────────────────────────────────────────────────────────────────────

export async function saveBinding(input: Omit<BindingRecord, 'createdAt' | 'personId' | 'voiceReplies'> & { personId?: string | null; voiceReplies?: boolean }): Promise<BindingRecord> {
  const data = {
    senderName: input.senderName,
    address: input.address,
    sessionId: input.sessionId,
    persona: input.persona,
    push: input.push,
    quietHours: input.quietHours ? JSON.stringify(input.quietHours) : null,
    ...(input.personId !== undefined && { personId: input.personId }),
    ...(input.voiceReplies !== undefined && { voiceReplies: input.voiceReplies }),
  };
  const row = await (await getDb()).channelBinding.upsert({
    where: { channelId_sender: { channelId: input.channelId, sender: input.sender } },
    create: { id: input.id, channelId: input.channelId, sender: input.sender, ...data },
    update: data,
  });
  return bindingRecord(row);
}

export async function findBinding(channelId: string, sender: string): Promise<BindingRecord | null> {
  const row = await (await getDb()).channelBinding.findUnique({ where: { channelId_sender: { channelId, sender } } });
  return row ? bindingRecord(row) : null;
}

export async function findBindingById(id: string): Promise<BindingRecord | null> {
  const row = await (await getDb()).channelBinding.findUnique({ where: { id } });
  return row ? bindingRecord(row) : null;
}

export async function listBindings(where: { sessionId?: string | null; channelId?: string; persona?: string; personId?: string | { in: string[] } } = {}): Promise<BindingRecord[]> {
  return (await (await getDb()).channelBinding.findMany({ where, orderBy: { createdAt: 'asc' } })).map(bindingRecord);
}

export async function updateBinding(id: string, patch: { push?: PushMode; quietHours?: QuietHours | null; sessionId?: string | null; voiceReplies?: boolean }): Promise<BindingRecord | null> {
  const data = {
    ...(patch.voiceReplies !== undefined && { voiceReplies: patch.voiceReplies }),
    ...(patch.push && { push: patch.push }),
    ...(patch.quietHours !== undefined && { quietHours: patch.quietHours ? JSON.stringify(patch.quietHours) : null }),
    ...(patch.sessionId !== undefined && { sessionId: patch.sessionId }),
  };
  const db = await getDb();
  const { count } = await db.channelBinding.updateMany({ where: { id }, data });
  return count === 1 ? findBindingById(id) : null;
}

export async function deleteBinding(id: string): Promise<boolean> {
  return (await (await getDb()).channelBinding.deleteMany({ where: { id } })).count > 0;
}

// ── Offsets ────────────────────────────────────────────────────────────────────────────────

export async function readOffset(channelId: string): Promise<string | null> {
  return (await (await getDb()).channelOffset.findUnique({ where: { channelId } }))?.value ?? null;
}

export async function writeOffset(channelId: string, value: string): Promise<void> {
  const data = { value, updatedAt: new Date() };
  await (await getDb()).channelOffset.upsert({ where: { channelId }, create: { channelId, ...data }, update: data });
}

// ── Outbox ─────────────────────────────────────────────────────────────────────────────────

/** Queues one message; `nextAt` holds it (quiet hours). */
export async function enqueueOutbox(input: { channelId: string; address: string; payload: OutboxPayload; nextAt?: Date }): Promise<OutboxRecord> {
  const row = await (await getDb()).channelOutbox.create({
    data: { channelId: input.channelId, address: input.address, payload: JSON.stringify(input.payload), ...(input.nextAt && { nextAt: input.nextAt }) },
  });
  return outboxRecord(row);
}

/** The channel's messages due now, oldest first (one sender per channel drains them in order). */
export async function dueOutbox(channelId: string, now: Date, limit = 20): Promise<OutboxRecord[]> {
  const rows = await (await getDb()).channelOutbox.findMany({ where: { channelId, state: 'pending', nextAt: { lte: now } }, orderBy: { id: 'asc' }, take: limit });
  return rows.map(outboxRecord);
}

/** When the next pending message of the channel is due, or null. */
export async function nextOutboxAt(channelId: string): Promise<Date | null> {
  const row = await (await getDb()).channelOutbox.findFirst({ where: { channelId, state: 'pending' }, orderBy: { nextAt: 'asc' }, select: { nextAt: true } });
  return row?.nextAt ?? null;
}

export async function findOutbox(id: number): Promise<OutboxRecord | null> {
  const row = await (await getDb()).channelOutbox.findUnique({ where: { id } });
  return row ? outboxRecord(row) : null;
}

/** The message a person replied to, by the provider's id, in their own chat. */
export async function findOutboxByProviderId(channelId: string, address: string, providerMessageId: string): Promise<OutboxRecord | null> {
  const row = await (await getDb()).channelOutbox.findFirst({ where: { channelId, address, providerMessageId } });
  return row ? outboxRecord(row) : null;
}

export async function markOutboxSent(id: number, providerMessageId: string | null, now: Date): Promise<void> {
  await (await getDb()).channelOutbox.updateMany({ where: { id, state: 'pending' }, data: { state: 'sent', providerMessageId, sentAt: now, attempts: { increment: 1 }, error: null } });
}

export async function markOutboxRetry(id: number, nextAt: Date, error: string, failed = false): Promise<void> {
  await (await getDb()).channelOutbox.updateMany({ where: { id, state: 'pending' }, data: { nextAt, error, attempts: { increment: 1 }, ...(failed && { state: 'failed' }) } });
}

/** The order a sent message's statuses move in (they may arrive out of it): a later one never goes back. */
const DELIVERY_RANK: Record<string, number> = { sent: 0, delivered: 1, read: 2 };

/**
 * What the provider says became of a message it took (WhatsApp's statuses, issue 77 §2): delivered
 * and read move forward only; failed marks the row failed with the reason, whatever came before.
 */
export async function markOutboxDelivery(channelId: string, providerMessageId: string, status: 'sent' | 'delivered' | 'read' | 'failed', reason?: string): Promise<number> {
  const db = await getDb();
  if (status === 'failed') {
    const { count } = await db.channelOutbox.updateMany({ where: { channelId, providerMessageId, state: 'sent' }, data: { state: 'failed', delivery: 'failed', error: reason ?? 'the provider could not deliver it' } });
    return count;
  }
  const earlier = Object.keys(DELIVERY_RANK).filter((name) => DELIVERY_RANK[name]! < DELIVERY_RANK[status]!);
  const { count } = await db.channelOutbox.updateMany({ where: { channelId, providerMessageId, state: 'sent', OR: [{ delivery: null }, { delivery: { in: earlier } }] }, data: { delivery: status } });
  return count;
}

/** A message the provider took but could not deliver for now (outside WhatsApp's window): pending again, waiting for its recipient. */
export async function holdSentOutbox(channelId: string, providerMessageId: string, reason: string, nextAt: Date): Promise<number> {
  const { count } = await (await getDb()).channelOutbox.updateMany({
    where: { channelId, providerMessageId, state: 'sent' },
    data: { state: 'pending', providerMessageId: null, sentAt: null, delivery: null, nextAt, error: `${HELD_PREFIX}${reason}` },
  });
  return count;
}

/** How a held message's error starts (releaseHeldOutbox finds them by it). */
const HELD_PREFIX = 'held: ';

/** Waits for its recipient: retried at `nextAt`, no attempt counted; failed once it waited too long. */
export async function markOutboxHeld(id: number, nextAt: Date, reason: string, expired: boolean): Promise<void> {
  await (await getDb()).channelOutbox.updateMany({ where: { id, state: 'pending' }, data: { nextAt, error: `${HELD_PREFIX}${reason}`, ...(expired && { state: 'failed' }) } });
}

/** Its recipient is back (they wrote): what waited for them is due now. The number released. */
export async function releaseHeldOutbox(channelId: string, address: string, now: Date): Promise<number> {
  const { count } = await (await getDb()).channelOutbox.updateMany({ where: { channelId, address, state: 'pending', nextAt: { gt: now }, error: { startsWith: HELD_PREFIX } }, data: { nextAt: now } });
  return count;
}

/** Why the newest message held for its recipient waits (a WhatsApp number outside its window, an IRC nick away), or null. */
export async function heldReason(channelId: string): Promise<string | null> {
  const row = await (await getDb()).channelOutbox.findFirst({ where: { channelId, state: 'pending', error: { startsWith: HELD_PREFIX } }, orderBy: { id: 'desc' }, select: { error: true } });
  return row?.error ? row.error.slice(HELD_PREFIX.length) : null;
}

/** What waits to be sent to these chats (quiet hours, a recipient away): how many, and until when the last of them waits. */
export async function waitingOutbox(chats: readonly { channelId: string; address: string }[], now: Date): Promise<{ count: number; until: Date | null }> {
  if (chats.length === 0) return { count: 0, until: null };
  const where = { state: 'pending', nextAt: { gt: now }, OR: chats.map((chat) => ({ channelId: chat.channelId, address: chat.address })) };
  const found = await (await getDb()).channelOutbox.aggregate({ where, _count: { _all: true }, _max: { nextAt: true } });
  return { count: found._count._all, until: found._max.nextAt ?? null };
}

export async function outboxCounts(channelId: string): Promise<Record<OutboxRecord['state'], number>> {
  const groups = await (await getDb()).channelOutbox.groupBy({ by: ['state'], where: { channelId }, _count: { _all: true } });
  const counts = { pending: 0, sent: 0, failed: 0 };
  for (const group of groups) counts[group.state as OutboxRecord['state']] = group._count._all;
  return counts;
}

// ── Messages from chats ────────────────────────────────────────────────────────────────────

/** A user message came from this binding's chat: its answer goes back there. */
export async function recordInbound(input: { messageId: number; sessionId: string; bindingId: string }): Promise<void> {
  await (await getDb()).channelInbound.upsert({ where: { messageId: input.messageId }, create: input, update: {} });
}

/** Of the bindings that sent these messages, those whose message came as a recording (an audio file sent with it: a voice note). */
export async function spokenInboundBindings(sessionId: string, messageIds: number[]): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const db = await getDb();
  const spoken = await db.upload.findMany({ where: { sessionId, messageId: { in: messageIds }, mimeType: { startsWith: 'audio/' } }, select: { messageId: true } });
  const ids = [...new Set(spoken.map((row) => row.messageId).filter((id): id is number => id !== null))];
  if (ids.length === 0) return [];
  const rows = await db.channelInbound.findMany({ where: { sessionId, messageId: { in: ids } }, select: { bindingId: true } });
  return [...new Set(rows.map((row) => row.bindingId))];
}

/** The bindings that sent any of these messages (a turn answers them). */
export async function inboundBindings(sessionId: string, messageIds: number[]): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const rows = await (await getDb()).channelInbound.findMany({ where: { sessionId, messageId: { in: messageIds } }, select: { bindingId: true } });
  return [...new Set(rows.map((row) => row.bindingId))];
}
