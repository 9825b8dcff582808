// Messages of the three layers and the M&C rows: paged reads with an id cursor (bounded queries).
import { flushLlmCalls } from './llm-call-writer';
import { getDb } from './db';

export const layers = ['external', 'internal', 'subconscious'] as const;
export type Layer = (typeof layers)[number];

export interface MessageRecord {
  id: number;
  sessionId: string;
  layer: Layer;
  tag: string;
  content: string;
  createdAt: Date;
  cycleNumber: number | null;
  turnId: string | null;
  spontaneous: boolean;
  interrupted: boolean;
  /** Written from untrusted content (§20, issue 44): what it was, or null. */
  untrustedSource?: string | null;
}

export interface MoodAndCriteriaRecord {
  id: number;
  sessionId: string;
  mood: string;
  criteria: string;
  createdAt: Date;
  cycleNumber: number;
}

/** Newest-first page before `before` (exclusive), returned oldest-first for display. */
export async function pageMessages(input: {
  sessionId: string;
  layer?: Layer;
  before?: number;
  limit: number;
}): Promise<{ messages: MessageRecord[]; nextBefore: number | null }> {
  const db = await getDb();
  const rows = await db.message.findMany({
    where: {
      sessionId: input.sessionId,
      ...(input.layer && { layer: input.layer }),
      ...(input.before !== undefined && { id: { lt: input.before } }),
    },
    orderBy: { id: 'desc' },
    take: input.limit + 1,
  });
  const hasMore = rows.length > input.limit;
  const page = rows.slice(0, input.limit).reverse();
  return {
    messages: page.map((row) => ({ ...row, layer: row.layer as Layer })),
    nextBefore: hasMore && page[0] ? page[0].id : null,
  };
}

/** M&C rows whose cycles fall within the given range (for the subconscious history page). */
export async function listMoodAndCriteria(input: {
  sessionId: string;
  fromCycle?: number;
  toCycle?: number;
  limit: number;
}): Promise<MoodAndCriteriaRecord[]> {
  const db = await getDb();
  const rows = await db.moodAndCriteria.findMany({
    where: {
      sessionId: input.sessionId,
      cycleNumber: {
        ...(input.fromCycle !== undefined && { gte: input.fromCycle }),
        ...(input.toCycle !== undefined && { lte: input.toCycle }),
      },
    },
    orderBy: { id: 'desc' },
    take: input.limit,
  });
  return rows.reverse();
}

/** The public JSON shape of a message (REST history and socket events alike). */
export function messageJson(message: MessageRecord) {
  return {
    id: message.id,
    layer: message.layer,
    tag: message.tag,
    content: message.content,
    cycle_number: message.cycleNumber,
    turn_id: message.turnId,
    spontaneous: message.spontaneous,
    interrupted: message.interrupted,
    created_at: message.createdAt.toISOString(),
  };
}
export type MessageJson = ReturnType<typeof messageJson>;

export function moodAndCriteriaJson(row: MoodAndCriteriaRecord) {
  return { id: row.id, mood: row.mood, criteria: row.criteria, cycle_number: row.cycleNumber, created_at: row.createdAt.toISOString() };
}
export type MoodAndCriteriaJson = ReturnType<typeof moodAndCriteriaJson>;

/** Everything a session holds, for export (the one read of a whole history, on request). */
export async function readWholeSession(input: { sessionId: string }) {
  await flushLlmCalls(); // the model-call rows written behind (llm-call-writer.ts)
  const db = await getDb();
  const [messages, moodAndCriteria, summaries, calls] = await Promise.all([
    db.message.findMany({ where: { sessionId: input.sessionId }, orderBy: { id: 'asc' } }),
    db.moodAndCriteria.findMany({ where: { sessionId: input.sessionId }, orderBy: { id: 'asc' } }),
    db.contextSummary.findMany({ where: { sessionId: input.sessionId }, orderBy: { id: 'asc' } }),
    db.llmCall.findMany({ where: { sessionId: input.sessionId }, orderBy: { id: 'asc' } }),
  ]);
  return { messages: messages.map((row) => ({ ...row, layer: row.layer as Layer })), moodAndCriteria, summaries, calls };
}

/**
 * Whether the session already has this exact user message since `since` (a scheduled message
 * delivered before a crash) — or, with `prefix`, one that starts with it (a mail, whose files add lines).
 */
export async function hasUserMessage(input: { sessionId: string; content: string; since: Date; prefix?: boolean }): Promise<boolean> {
  const db = await getDb();
  const content = input.prefix ? { startsWith: input.content } : input.content;
  return (await db.message.count({ where: { sessionId: input.sessionId, tag: 'ED_user', content, createdAt: { gte: input.since } } })) > 0;
}

/** The agent's reply stored for the turn that answered this message: null while no turn has taken it, '' when the turn said nothing aloud. */
export async function replyToMessage(input: { sessionId: string; messageId: number }): Promise<string | null> {
  const db = await getDb();
  const asked = await db.message.findUnique({ where: { id: input.messageId }, select: { turnId: true } });
  if (!asked?.turnId) return null;
  const answer = await db.message.findFirst({ where: { sessionId: input.sessionId, turnId: asked.turnId, tag: 'ED_agent' }, select: { content: true } });
  return answer?.content ?? '';
}

/** One message of the External Dialog of a session (what is said in the chat), or null. */
export async function findChatMessage(input: { sessionId: string; id: number }): Promise<{ id: number; tag: string; content: string } | null> {
  const db = await getDb();
  return db.message.findFirst({ where: { id: input.id, sessionId: input.sessionId, layer: 'external' }, select: { id: true, tag: true, content: true } });
}
