// What a running mind reads and writes: its state on start or resume (bounded queries only —
// a session's whole history is never read), and each output as one transaction.
import { getDb, getStore } from './db';
import { rawDb, rawWrite, sqliteDate, statement } from './raw-db';
import { pgDate, pgQuery, pgRaw } from './pg-raw';
import { fencedWrite, fenceGuard, writeEpoch } from './lease-fence';
import { flushLlmCalls, queueLlmCall, type LlmCallRow } from './llm-call-writer';
import type { Layer, MessageRecord, MoodAndCriteriaRecord } from './messages-repository';
import { storableNullableText, storableText } from './storable-text';

/** 'memory': the Subconscious's consolidation while the user is away (lib/memory/consolidation.ts).
  `embeddings`: an embeddings endpoint's calls (recall by meaning, indexing), their own layer on Spending.
  `speech`: recordings heard and replies said on a speech server (lib/voice/speech-meter.ts). */
export type CallLayer = 'internal' | 'subconscious' | 'summary' | 'memory' | 'embeddings' | 'speech';

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Sum of the calls with a known price. */
  costUsd: number;
  /** Calls whose model has no known price (their cost is not in costUsd). */
  unpricedCalls: number;
}

export function emptyUsageTotals(): UsageTotals {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unpricedCalls: 0 };
}

/** Zero usage for every layer. */
export function emptyUsageByLayer(): Record<CallLayer, UsageTotals> {
  return { internal: emptyUsageTotals(), subconscious: emptyUsageTotals(), summary: emptyUsageTotals(), memory: emptyUsageTotals(), embeddings: emptyUsageTotals(), speech: emptyUsageTotals() };
}

export type SummaryLayer = 'internal' | 'subconscious';

export interface SummaryRecord {
  layer: SummaryLayer;
  summary: string;
  fromCycle: number;
  toCycle: number;
  /** An imported summary: someone else's words (issue 44). */
  untrustedSource?: string | null;
}

export interface MindSnapshot {
  lastCycle: number;
  /** The summary in effect per layer (the latest); entries it covers are not loaded. */
  summaries: Record<SummaryLayer, SummaryRecord | null>;
  moodAndCriteria: MoodAndCriteriaRecord | null;
  /** The S_loud of the latest cycle (possibly empty). */
  latestSLoud: MessageRecord | null;
  /** The latest cycle whose state an Internal Dialog turn has read. */
  lastDeliveredCycle: number;
  lastUserMessage: MessageRecord | null;
  lastAgentMessage: MessageRecord | null;
  idQuiet: MessageRecord[];
  idLoud: MessageRecord[];
  sQuiet: MessageRecord[];
  sLoud: MessageRecord[];
  /** User messages no turn has answered yet (a crash or pause came first), oldest first. */
  unanswered: MessageRecord[];
  /** Spontaneous turns since the user last spoke (at most 101 are counted; the cap is ≤ 100). */
  consecutiveSpontaneous: number;
  usage: Record<CallLayer, UsageTotals>;
}

type MessageRow = Omit<MessageRecord, 'layer'> & { layer: string };
const toRecord = (row: MessageRow): MessageRecord => ({ ...row, layer: row.layer as Layer });

/** Each window holds at most `windowSize` entries, newest last. */
export async function loadMindSnapshot(input: { sessionId: string; windowSize: number }): Promise<MindSnapshot> {
  const db = await getDb();
  const { sessionId, windowSize } = input;
  const latestSummary = (layer: SummaryLayer) =>
    db.contextSummary.findFirst({ where: { sessionId, layer }, orderBy: { id: 'desc' } }).then((row) => (row ? { layer, summary: row.summary, fromCycle: row.fromCycle, toCycle: row.toCycle, untrustedSource: row.untrustedSource } : null));
  const [subconsciousSummary, internalSummary] = await Promise.all([latestSummary('subconscious'), latestSummary('internal')]);
  // Entries a summary already covers stay in the database but not in the windows.
  const after = (summary: SummaryRecord | null) => (summary ? { cycleNumber: { gt: summary.toCycle } } : {});
  const latest = (tag: string, take: number, summary: SummaryRecord | null = null) =>
    db.message.findMany({ where: { sessionId, tag, ...after(summary) }, orderBy: { id: 'desc' }, take }).then((rows) => rows.reverse().map(toRecord));
  const [lastCycleRow, moodAndCriteria, lastDelivered, idQuiet, idLoud, sQuiet, sLoud, userRows, agentRows, unanswered, recentExternal, usage] =
    await Promise.all([
      db.moodAndCriteria.findFirst({ where: { sessionId }, orderBy: { cycleNumber: 'desc' }, select: { cycleNumber: true } }),
      db.moodAndCriteria.findFirst({ where: { sessionId }, orderBy: { id: 'desc' } }),
      db.message.findFirst({ where: { sessionId, layer: 'internal', cycleNumber: { not: null } }, orderBy: { id: 'desc' }, select: { cycleNumber: true } }),
      latest('ID_quiet', windowSize, internalSummary),
      latest('ID_loud', windowSize),
      latest('S_quiet', windowSize, subconsciousSummary),
      latest('S_loud', windowSize, subconsciousSummary),
      latest('ED_user', 1),
      latest('ED_agent', 1),
      db.message.findMany({ where: { sessionId, tag: 'ED_user', turnId: null }, orderBy: { id: 'asc' }, take: 100 }),
      // Ids grow across layers, so this is the interleaved order of user messages and turns.
      db.message.findMany({ where: { sessionId, tag: { in: ['ED_user', 'ID_loud'] } }, orderBy: { id: 'desc' }, take: 101, select: { tag: true, spontaneous: true } }),
      loadUsageTotals({ sessionId }),
    ]);

  let consecutiveSpontaneous = 0;
  for (const row of recentExternal) {
    if (row.tag === 'ED_user') break;
    if (row.spontaneous) consecutiveSpontaneous++;
  }
  const latestSLoud = sLoud.at(-1) ?? null;
  return {
    lastCycle: Math.max(lastCycleRow?.cycleNumber ?? 0, latestSLoud?.cycleNumber ?? 0),
    summaries: { subconscious: subconsciousSummary, internal: internalSummary },
    moodAndCriteria,
    latestSLoud,
    lastDeliveredCycle: lastDelivered?.cycleNumber ?? 0,
    lastUserMessage: userRows[0] ?? null,
    lastAgentMessage: agentRows[0] ?? null,
    idQuiet,
    idLoud,
    sQuiet,
    sLoud: sLoud.filter((message) => message.content.trim() !== ''),
    unanswered: unanswered.map(toRecord),
    consecutiveSpontaneous,
    usage,
  };
}

/** Tokens and cost per layer, summed over the session's llm_calls (one grouped query). */
export async function loadUsageTotals(input: { sessionId: string }): Promise<Record<CallLayer, UsageTotals>> {
  await flushLlmCalls();
  const db = await getDb();
  const rows = await db.llmCall.groupBy({
    by: ['layer'],
    where: { sessionId: input.sessionId },
    _count: { _all: true, costUsd: true },
    _sum: { inputTokens: true, outputTokens: true, cacheReadTokens: true, cacheWriteTokens: true, costUsd: true },
  });
  const usage = emptyUsageByLayer();
  for (const row of rows) {
    if (!(row.layer in usage)) continue;
    usage[row.layer as CallLayer] = {
      calls: row._count._all,
      inputTokens: row._sum.inputTokens ?? 0,
      outputTokens: row._sum.outputTokens ?? 0,
      cacheReadTokens: row._sum.cacheReadTokens ?? 0,
      cacheWriteTokens: row._sum.cacheWriteTokens ?? 0,
      costUsd: row._sum.costUsd ?? 0,
      unpricedCalls: row._count._all - row._count.costUsd,
    };
  }
  return usage;
}

/** `untrustedSource`: the words are another server's (a webhook's payload, an MCP server's resource). */
export async function insertUserMessage(input: { sessionId: string; content: string; cycleNumber: number; untrustedSource?: string | null }): Promise<MessageRecord> {
  const store = await getStore(); // the file exists and is migrated before the direct connection writes
  const now = new Date();
  const content = storableText(input.content);
  const untrustedSource = input.untrustedSource ?? null;
  const record = (id: number): MessageRecord => ({ id, sessionId: input.sessionId, layer: 'external', tag: 'ED_user', content, createdAt: now, cycleNumber: input.cycleNumber, turnId: null, spontaneous: false, interrupted: false, untrustedSource });
  // Every message a person sends starts here, before the ack: one round trip, statements prepared once.
  if (store.kind === 'postgres') {
    const { rows } = await pgQuery<{ id: number }>(
      pgRaw(store.url),
      'agentcsd_insert_user_message',
      `WITH touched AS (
         UPDATE sessions SET last_activity_at = $4::timestamp(3) WHERE id = $1
       )
       INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, untrusted_source)
       VALUES ($1, 'external', 'ED_user', $2, $4::timestamp(3), $3::int, $5::text)
       RETURNING id`,
      [input.sessionId, content, input.cycleNumber, pgDate(now), untrustedSource],
    );
    return record(Number(rows[0]!.id));
  }
  const raw = rawDb();
  const insert = statement(raw, `INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, untrusted_source) VALUES (?, 'external', 'ED_user', ?, ?, ?, ?) RETURNING id`);
  const touch = statement(raw, `UPDATE sessions SET last_activity_at = ? WHERE id = ?`);
  return rawWrite(
    raw.database.transaction(() => {
      const { id } = insert.get(input.sessionId, content, sqliteDate(now), input.cycleNumber, untrustedSource) as { id: number };
      touch.run(sqliteDate(now), input.sessionId);
      return record(id);
    }),
  );
}

/**
 * One Internal Dialog turn: ID_loud and ID_quiet, ED_agent when something was said, and the
 * user messages it answered marked with its id — all or nothing.
 */
export async function insertTurn(input: {
  sessionId: string;
  turnId: string;
  cycleNumber: number;
  spontaneous: boolean;
  loud: string;
  quiet: string;
  interrupted: boolean;
  answeredMessageIds: number[];
  /** The untrusted content the turn's prompt held (issue 44): its messages carry it. */
  untrustedSource?: string | null;
}): Promise<MessageRecord[]> {
  const store = await getStore(); // the file exists and is migrated before the direct connection writes
  const untrustedSource = input.untrustedSource?.slice(0, 500) ?? null;
  const common = { sessionId: input.sessionId, turnId: input.turnId, cycleNumber: input.cycleNumber, spontaneous: input.spontaneous, interrupted: input.interrupted, untrustedSource };
  const rows = [
    { ...common, layer: 'internal', tag: 'ID_loud', content: storableText(input.loud) },
    { ...common, layer: 'internal', tag: 'ID_quiet', content: storableText(input.quiet) },
    ...(input.loud.trim() ? [{ ...common, layer: 'external', tag: 'ED_agent', content: storableText(input.loud) }] : []),
  ];
  const now = new Date();
  if (store.kind === 'postgres') {
    // One statement, one round trip (pg-raw.ts): the answered messages marked, the turn's messages
    // inserted in order, the session touched. Ids come from one sequence in insertion order.
    const { rows: inserted } = await pgQuery<{ id: number }>(
      pgRaw(store.url),
      'agentcsd_insert_turn',
      `WITH lease AS (
         SELECT ${fenceGuard(11)} AS ok
       ), answered AS (
         UPDATE messages SET turn_id = $2 WHERE session_id = $1 AND id = ANY($3::int[]) AND (SELECT ok FROM lease)
       ), touched AS (
         UPDATE sessions SET last_activity_at = $4::timestamp(3) WHERE id = $1 AND (SELECT ok FROM lease)
       ), inserted AS (
         INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, turn_id, spontaneous, interrupted, untrusted_source)
         SELECT $1, r.layer, r.tag, r.content, $4::timestamp(3), $5::int, $2, $6::boolean, $7::boolean, $12::text
         FROM unnest($8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS r(layer, tag, content, ord)
         WHERE (SELECT ok FROM lease)
         ORDER BY r.ord
         RETURNING id
       )
       SELECT id FROM inserted ORDER BY id`,
      [
        input.sessionId, input.turnId, input.answeredMessageIds, pgDate(now), input.cycleNumber, input.spontaneous, input.interrupted,
        rows.map((row) => row.layer), rows.map((row) => row.tag), rows.map((row) => row.content), writeEpoch(input.sessionId), untrustedSource,
      ],
    );
    // The lease moved on while this process was away: nothing was written (lease-fence.ts).
    if (inserted.length === 0) throw fencedWrite(input.sessionId);
    return rows.map((row, index): MessageRecord => ({ ...row, id: Number(inserted[index]!.id), layer: row.layer as Layer, createdAt: now }));
  }
  // Every turn of every session ends here: statements prepared once (raw-db.ts), one transaction.
  const raw = rawDb();
  const answer = statement(raw, `UPDATE messages SET turn_id = ? WHERE session_id = ? AND id = ?`);
  const insert = statement(
    raw,
    `INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, turn_id, spontaneous, interrupted, untrusted_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const touch = statement(raw, `UPDATE sessions SET last_activity_at = ? WHERE id = ?`);
  return rawWrite(raw.database.transaction(() => {
    for (const id of input.answeredMessageIds) answer.run(input.turnId, input.sessionId, id);
    const records = rows.map((row): MessageRecord => {
      const { id } = insert.get(row.sessionId, row.layer, row.tag, row.content, sqliteDate(now), row.cycleNumber, row.turnId, row.spontaneous ? 1 : 0, row.interrupted ? 1 : 0, untrustedSource) as { id: number };
      return { ...row, id, layer: row.layer as Layer, createdAt: now };
    });
    touch.run(sqliteDate(now), input.sessionId);
    return records;
  }));
}

/** A turn that failed before saying anything still answers its messages: they are not retried forever. */
export async function markAnswered(input: { sessionId: string; turnId: string; messageIds: number[] }): Promise<void> {
  if (input.messageIds.length === 0) return;
  const db = await getDb();
  await db.message.updateMany({ where: { id: { in: input.messageIds }, sessionId: input.sessionId }, data: { turnId: input.turnId } });
}

/** One Subconscious cycle: S_loud, S_quiet, trigger and the Mood & Criteria, all or nothing. */
export async function insertCycle(input: {
  sessionId: string;
  cycleNumber: number;
  sLoud: string;
  sQuiet: string;
  trigger: boolean;
  mood: string;
  criteria: string;
}): Promise<{ messages: MessageRecord[]; moodAndCriteria: MoodAndCriteriaRecord }> {
  const db = await getDb();
  const common = { sessionId: input.sessionId, layer: 'subconscious', cycleNumber: input.cycleNumber };
  const rows = [
    { ...common, tag: 'S_loud', content: storableText(input.sLoud) },
    { ...common, tag: 'S_quiet', content: storableText(input.sQuiet) },
    { ...common, tag: 'trigger', content: String(input.trigger) },
  ];
  const store = await getStore();
  if (store.kind === 'postgres') return insertCyclePg(store.url, input, rows);
  const results = await db.$transaction([
    ...rows.map((data) => db.message.create({ data })),
    db.moodAndCriteria.create({ data: { sessionId: input.sessionId, mood: storableText(input.mood), criteria: storableText(input.criteria), cycleNumber: input.cycleNumber } }),
  ]);
  return {
    messages: (results.slice(0, rows.length) as MessageRow[]).map(toRecord),
    moodAndCriteria: results[rows.length] as MoodAndCriteriaRecord,
  };
}

export async function insertSummary(input: { sessionId: string } & SummaryRecord): Promise<void> {
  const db = await getDb();
  await db.contextSummary.create({
    data: { sessionId: input.sessionId, layer: input.layer, summary: storableText(input.summary), fromCycle: input.fromCycle, toCycle: input.toCycle, untrustedSource: input.untrustedSource ?? null },
  });
}

/** The same on PostgreSQL, in one fenced statement (a cycle of a mind whose session moved on is refused). */
async function insertCyclePg(
  url: string,
  input: { sessionId: string; cycleNumber: number; mood: string; criteria: string },
  rows: { tag: string; content: string }[],
): Promise<{ messages: MessageRecord[]; moodAndCriteria: MoodAndCriteriaRecord }> {
  const now = new Date();
  const { rows: inserted } = await pgQuery<{ id: number; kind: string }>(
    pgRaw(url),
    'agentcsd_insert_cycle',
    `WITH lease AS (
       SELECT ${fenceGuard(7)} AS ok
     ), inserted AS (
       INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number)
       SELECT $1, 'subconscious', r.tag, r.content, $2::timestamp(3), $3::int
       FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS r(tag, content, ord)
       WHERE (SELECT ok FROM lease)
       ORDER BY r.ord
       RETURNING id
     ), mc AS (
       INSERT INTO mood_and_criteria (session_id, mood, criteria, created_at, cycle_number)
       SELECT $1, $6, $8, $2::timestamp(3), $3::int WHERE (SELECT ok FROM lease)
       RETURNING id
     )
     SELECT id, 'message' AS kind FROM inserted UNION ALL SELECT id, 'mc' AS kind FROM mc ORDER BY kind, id`,
    [
      input.sessionId, pgDate(now), input.cycleNumber, rows.map((row) => row.tag), rows.map((row) => row.content),
      storableText(input.mood), writeEpoch(input.sessionId), storableText(input.criteria),
    ],
  );
  const mc = inserted.find((row) => row.kind === 'mc');
  if (!mc) throw fencedWrite(input.sessionId);
  const ids = inserted.filter((row) => row.kind === 'message').map((row) => Number(row.id));
  return {
    messages: rows.map((row, index): MessageRecord => ({
      id: ids[index]!, sessionId: input.sessionId, layer: 'subconscious', tag: row.tag, content: row.content, createdAt: now,
      cycleNumber: input.cycleNumber, turnId: null, spontaneous: false, interrupted: false,
    })),
    moodAndCriteria: { id: Number(mc.id), sessionId: input.sessionId, mood: storableText(input.mood), criteria: storableText(input.criteria), createdAt: now, cycleNumber: input.cycleNumber },
  };
}

/** A model call's row (llm-call-writer.ts has its columns), its task's trace id optional. */
export type LlmCallInput = Omit<LlmCallRow, 'layer' | 'traceId'> & {
  layer: CallLayer;
  /** The task whose step made the call. */
  traceId?: string | null;
};

/** One row per model call, on every step of every turn: a statement prepared once (raw-db.ts); on PostgreSQL queued. */
export async function insertLlmCall(given: LlmCallInput): Promise<void> {
  const input = { ...given, error: storableNullableText(given.error) };
  const store = await getStore(); // the file exists and is migrated before the direct connection writes
  if (store.kind === 'postgres') {
    queueLlmCall(store.url, { ...input, traceId: input.traceId ?? null }); // written behind the turn (llm-call-writer.ts)
    return;
  }
  const raw = rawDb();
  await rawWrite(() =>
    statement(
    raw,
    `INSERT INTO llm_calls (session_id, layer, backend, model, started_at, first_token_ms, duration_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, finish_reason, error, trace_id)
     VALUES (@sessionId, @layer, @backend, @model, @startedAt, @firstTokenMs, @durationMs, @inputTokens, @outputTokens, @cacheReadTokens, @cacheWriteTokens, @costUsd, @finishReason, @error, @traceId)`,
  ).run({ ...input, startedAt: sqliteDate(input.startedAt), traceId: input.traceId ?? null }),
  );
}

/** The model calls a task's steps made, oldest first. */
export async function listLlmCallsByTrace(traceId: string) {
  await flushLlmCalls();
  const db = await getDb();
  return db.llmCall.findMany({ where: { traceId }, orderBy: { id: 'asc' } });
}
