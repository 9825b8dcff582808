// Where the money went (issue 48): the recorded model calls (llm_calls) summed per local day, by
// what made them — the Internal Dialog's replies, tasks, the Subconscious, consolidation, context
// summaries, specialists (a delegated session's calls) — and by persona; and the costliest sessions.
// The store sums per UTC hour (few rows whatever the traffic); the hours are put in local days here.
import { getDb, getStore } from './db';
import { localDay } from './allowances-repository';

export type SpendingLayer = 'internal' | 'tasks' | 'subconscious' | 'consolidation' | 'summary' | 'embeddings' | 'speech' | 'delegation' | 'other';

export interface SpendingDay {
  day: string;
  usd: number;
  tokens: number;
  byLayer: Partial<Record<SpendingLayer, number>>;
  byPersona: Record<string, number>;
}

export interface SessionSpending {
  sessionId: string;
  name: string;
  persona: string;
  usd: number;
  tokens: number;
}

const CATEGORY = `CASE WHEN s.parent_session_id IS NOT NULL THEN 'delegation' WHEN l.layer = 'internal' AND l.trace_id IS NOT NULL THEN 'tasks' WHEN l.layer = 'memory' THEN 'consolidation' WHEN l.layer IN ('internal', 'subconscious', 'summary', 'embeddings', 'speech') THEN l.layer ELSE 'other' END`;
const TOKENS = 'l.input_tokens + l.output_tokens + l.cache_read_tokens + l.cache_write_tokens';

/** Calls of the sessions a person is in (their own spending, issue 61). */
const OF_PERSON = (param: string) => `l.session_id IN (SELECT session_id FROM session_people WHERE person_id = ${param})`;

interface HourSum {
  /** The UTC hour, `YYYY-MM-DDTHH`. */
  hour: string;
  category: SpendingLayer;
  persona: string | null;
  usd: number;
  tokens: number;
}

/** The calls since `since` summed per UTC hour, category and persona: what every view here is made of. */
async function hourlySums(input: { since: Date; sessionId?: string; personId?: string }): Promise<HourSum[]> {
  const db = await getDb();
  const store = await getStore();
  const hour = store.kind === 'postgres' ? `to_char(date_trunc('hour', l.started_at), 'YYYY-MM-DD"T"HH24')` : `strftime('%Y-%m-%dT%H', l.started_at)`;
  const param = (index: number) => (store.kind === 'postgres' ? `$${index}` : '?');
  const rows = await db.$queryRawUnsafe<{ hour: string; category: SpendingLayer; persona: string | null; usd: number | null; tokens: number | bigint | null }[]>(
    `SELECT ${hour} AS hour, ${CATEGORY} AS category, s.persona_name AS persona, SUM(COALESCE(l.cost_usd, 0)) AS usd, SUM(${TOKENS}) AS tokens
     FROM llm_calls l LEFT JOIN sessions s ON s.id = l.session_id
     WHERE l.started_at >= ${param(1)}${input.sessionId ? ` AND l.session_id = ${param(2)}` : ''}${input.personId ? ` AND ${OF_PERSON(param(input.sessionId ? 3 : 2))}` : ''}
     GROUP BY 1, 2, 3`,
    ...(store.kind === 'postgres' ? [input.since] : [input.since.toISOString().replace('Z', '+00:00')]),
    ...(input.sessionId ? [input.sessionId] : []),
    ...(input.personId ? [input.personId] : []),
  );
  return rows.map((row) => ({ hour: row.hour, category: row.category, persona: row.persona, usd: Number(row.usd ?? 0), tokens: Number(row.tokens ?? 0) }));
}

/** The last `days` local days (today included) in `timeZone`, oldest first, each with its sums; one session's alone when given. */
export async function spendingByDay(input: { days: number; timeZone: string; now: Date; sessionId?: string; personId?: string }): Promise<SpendingDay[]> {
  const since = new Date(input.now.getTime() - (input.days + 1) * 24 * 60 * 60 * 1000);
  const rows = await hourlySums({ since, ...(input.sessionId && { sessionId: input.sessionId }), ...(input.personId && { personId: input.personId }) });
  const days = new Map<string, SpendingDay>();
  for (let back = input.days - 1; back >= 0; back--) {
    const day = localDay(new Date(input.now.getTime() - back * 24 * 60 * 60 * 1000), input.timeZone);
    days.set(day, { day, usd: 0, tokens: 0, byLayer: {}, byPersona: {} });
  }
  for (const row of rows) {
    const entry = days.get(localDay(new Date(`${row.hour}:30:00Z`), input.timeZone));
    if (!entry) continue; // before the first day shown
    entry.usd += row.usd;
    entry.tokens += row.tokens;
    entry.byLayer[row.category] = (entry.byLayer[row.category] ?? 0) + row.usd;
    const persona = row.persona ?? 'no session';
    entry.byPersona[persona] = (entry.byPersona[persona] ?? 0) + row.usd;
  }
  return [...days.values()];
}

/** The `limit` sessions that cost the most since `since`. */
export async function costliestSessions(input: { since: Date; limit: number; personId?: string }): Promise<SessionSpending[]> {
  const db = await getDb();
  const store = await getStore();
  const rows = await db.$queryRawUnsafe<{ id: string; name: string; persona: string; usd: number | null; tokens: number | bigint | null }[]>(
    `SELECT s.id AS id, s.name AS name, s.persona_name AS persona, SUM(COALESCE(l.cost_usd, 0)) AS usd, SUM(${TOKENS}) AS tokens
     FROM llm_calls l JOIN sessions s ON s.id = l.session_id
     WHERE l.started_at >= ${store.kind === 'postgres' ? '$1' : '?'}${input.personId ? ` AND ${OF_PERSON(store.kind === 'postgres' ? '$2' : '?')}` : ''}
     GROUP BY s.id, s.name, s.persona_name ORDER BY 4 DESC, 5 DESC LIMIT ${Math.max(1, Math.min(100, Math.floor(input.limit)))}`,
    store.kind === 'postgres' ? input.since : input.since.toISOString().replace('Z', '+00:00'),
    ...(input.personId ? [input.personId] : []),
  );
  return rows.map((row) => ({ sessionId: row.id, name: row.name, persona: row.persona, usd: Number(row.usd ?? 0), tokens: Number(row.tokens ?? 0) }));
}

/** What the conversations a person is in spent since `since` (their share of the day, as the People page shows it). */
export async function personSpending(input: { personId: string; since: Date }): Promise<number> {
  const db = await getDb();
  const store = await getStore();
  const param = (index: number) => (store.kind === 'postgres' ? `$${index}` : '?');
  const rows = await db.$queryRawUnsafe<{ usd: number | null }[]>(
    `SELECT SUM(COALESCE(l.cost_usd, 0)) AS usd FROM llm_calls l JOIN session_people sp ON sp.session_id = l.session_id
     WHERE sp.person_id = ${param(1)} AND l.started_at >= ${param(2)}`,
    input.personId,
    store.kind === 'postgres' ? input.since : input.since.toISOString().replace('Z', '+00:00'),
  );
  return Number(rows[0]?.usd ?? 0);
}

export interface SpendingHour {
  /** The hour's start, ISO (UTC). */
  hour: string;
  tokens: Partial<Record<SpendingLayer, number>>;
  usd: number;
}

/**
 * Tokens per hour by what made the calls, the last `hours` hours (this one included), oldest first,
 * every hour present (issue 74: what idling costs, apart from answering); one session's when given.
 */
export async function spendingByHour(input: { hours: number; now: Date; sessionId?: string; personId?: string }): Promise<SpendingHour[]> {
  const first = Math.floor(input.now.getTime() / 3600_000) - (input.hours - 1);
  const rows = await hourlySums({ since: new Date(first * 3600_000), ...(input.sessionId && { sessionId: input.sessionId }), ...(input.personId && { personId: input.personId }) });
  const hours = Array.from({ length: input.hours }, (_, index): SpendingHour => ({ hour: new Date((first + index) * 3600_000).toISOString(), tokens: {}, usd: 0 }));
  for (const row of rows) {
    const entry = hours[Math.floor(Date.parse(`${row.hour}:00:00Z`) / 3600_000) - first];
    if (!entry) continue;
    entry.tokens[row.category] = (entry.tokens[row.category] ?? 0) + row.tokens;
    entry.usd += row.usd;
  }
  return hours;
}

/** The Subconscious's last finished cycles (newest first): what one of its calls costs on the models in use. */
export async function recentSubconsciousCalls(limit = 50): Promise<{ model: string; inputTokens: number; outputTokens: number; durationMs: number; costUsd: number | null }[]> {
  const rows = await (await getDb()).llmCall.findMany({
    where: { layer: 'subconscious', error: null },
    orderBy: { id: 'desc' },
    take: limit,
    select: { model: true, inputTokens: true, outputTokens: true, cacheReadTokens: true, cacheWriteTokens: true, durationMs: true, costUsd: true },
  });
  return rows.map((row) => ({ model: row.model, inputTokens: row.inputTokens + row.cacheReadTokens + row.cacheWriteTokens, outputTokens: row.outputTokens, durationMs: row.durationMs, costUsd: row.costUsd }));
}
