// The lexical half of recall, on whichever database holds the store: SQLite's FTS5 tables ranked by
// BM25, or PostgreSQL's generated tsvector columns (GIN-indexed) ranked by ts_rank weighted by each
// word's idf — both with English stemming. A query is its topic words only, each a plain word, so
// no search operator can be injected. Items with every word come first (a small, cheap set when the words are common), then
// items with any of them, only when those are not enough: ranking every item with one common word
// is what costs at 100k.
import { getStore } from '@/lib/store/db';
import { pgQuery, pgRaw } from '@/lib/store/pg-raw';
import { statement, rawDb } from '@/lib/store/raw-db';
import { memoryOf, type MemoryRecord } from './memory-store';

/** English words that carry no topic: left out of the query (the index keeps them). */
const STOPWORDS = new Set(
  'a an and are as at be been being but by can could did do does doing for from had has have having he her hers him his how i if in into is it its me my of on or our she so than that the their them then there these they this those to too up us was we were what when where which who whom why will with would you your yours about after again all also am any because before between both did each few further here just more most no nor not now off once only other out over own same should some such through under until very while'.split(
    ' ',
  ),
);

/** A query's topic words: lower case, letters and digits only, at most 32. */
export function topicWords(text: string): string[] {
  return [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOPWORDS.has(word) && word.length > 1))].slice(0, 32);
}

export interface MessageHit {
  id: number;
  sessionId: string;
  content: string;
  createdAt: Date;
}

export interface TextSearch {
  personaName: string;
  words: readonly string[];
  limit: number;
  /** Messages of this session are left out ('' = none). */
  excludeSessionId: string;
  /** Memories expired by then are left out. */
  now: Date;
}

/** Every-word matches first, then any-word ones, `limit` in all, each list in rank order. */
async function bothPasses<Hit extends { id: number }>(words: readonly string[], limit: number, run: (mode: 'all' | 'any', count: number) => Promise<Hit[]>): Promise<Hit[]> {
  const first = words.length > 1 ? await run('all', limit) : [];
  if (first.length >= limit) return first;
  const seen = new Set(first.map((hit) => hit.id));
  return [...first, ...(await run('any', limit)).filter((hit) => !seen.has(hit.id))].slice(0, limit);
}

export async function searchMessages(search: TextSearch, extra: number): Promise<MessageHit[]> {
  if (search.words.length === 0) return [];
  const store = await getStore();
  if (store.kind === 'postgres') return postgresMessages(store.url, search, extra);
  return bothPasses(search.words, search.limit, (mode, count) =>
    sqliteMessages(search, mode, count + extra),
  );
}

export async function searchMemories(search: TextSearch): Promise<MemoryRecord[]> {
  if (search.words.length === 0) return [];
  const store = await getStore();
  if (store.kind === 'postgres') return postgresMemories(store.url, search);
  return bothPasses(search.words, search.limit, (mode, count) => sqliteMemories(search, mode, count));
}

/** FTS5 syntax: each word quoted. */
export const ftsMatch = (words: readonly string[], mode: 'all' | 'any') => words.map((word) => `"${word}"`).join(mode === 'all' ? ' AND ' : ' OR ');
/** tsquery syntax: the words are letters and digits only, so they are plain lexemes. */
export const tsQuery = (words: readonly string[], mode: 'all' | 'any') => words.join(mode === 'all' ? ' & ' : ' | ');

async function sqliteMessages(search: TextSearch, mode: 'all' | 'any', count: number): Promise<MessageHit[]> {
  const rows = statement(
    rawDb(),
    `SELECT m.id, m.session_id, m.content, m.created_at FROM message_fts
       JOIN messages m ON m.id = message_fts.rowid
       JOIN sessions s ON s.id = m.session_id
     WHERE message_fts MATCH ? AND s.persona_name = ? AND m.session_id != ?
     ORDER BY bm25(message_fts) LIMIT ?`,
  ).all(ftsMatch(search.words, mode), search.personaName, search.excludeSessionId, count) as { id: number; session_id: string; content: string; created_at: string }[];
  return rows.map((row) => ({ id: row.id, sessionId: row.session_id, content: row.content, createdAt: new Date(row.created_at) }));
}

async function sqliteMemories(search: TextSearch, mode: 'all' | 'any', count: number): Promise<MemoryRecord[]> {
  const rows = statement(
    rawDb(),
    `SELECT memories.* FROM memory_fts JOIN memories ON memories.id = memory_fts.rowid
     WHERE memory_fts MATCH ? AND memories.persona_name = ? AND memories.valid_to IS NULL
       AND (memories.expires_at IS NULL OR memories.expires_at > ?)
     ORDER BY bm25(memory_fts) LIMIT ?`,
  ).all(ftsMatch(search.words, mode), search.personaName, search.now.toISOString().replace('Z', '+00:00'), count) as Parameters<typeof memoryOf>[0][];
  return rows.map(memoryOf);
}

// PostgreSQL stores Prisma's DateTime as `timestamp(3)` (UTC, no zone): compared with the UTC wall
// clock as text, whatever the connection's time zone.
const utcText = (date: Date) => date.toISOString().slice(0, 23).replace('T', ' ');

/**
 * BM25's weighting in PostgreSQL's terms (ts_rank alone has no inverse document frequency, which
 * cost 10 points of recall@10 on LoCoMo): each query word's rank in the item (ts_rank, normalised
 * by length) times the word's idf over the table, `ln(1 + (N - df + 0.5) / (df + 0.5))`, summed.
 */
const weightedTerms = (table: 'messages' | 'memories', wordsParam: string) => `terms AS MATERIALIZED (
  SELECT t.q, ln(1 + (total.n - df.n + 0.5) / (df.n + 0.5)) AS idf
  FROM unnest(${wordsParam}::text[]) AS word,
       LATERAL (SELECT to_tsquery('english', word) AS q) AS t,
       -- N for the idf: the planner's row count once the table has statistics (a scan of every row
       -- otherwise, per search: 2 ms at 10k); exact only matters for the ranking's order, which an
       -- estimate within autovacuum's 10% keeps.
       (SELECT CASE WHEN c.reltuples > 0 THEN c.reltuples::float8 ELSE (SELECT COUNT(*)::float8 FROM ${table} WHERE search IS NOT NULL) END AS n
          FROM pg_class c WHERE c.oid = '${table}'::regclass) AS total,
       LATERAL (SELECT COUNT(*)::float8 AS n FROM ${table} WHERE search @@ t.q) AS df
)`;
const weightedRank = (alias: string) => `(SELECT SUM(terms.idf * ts_rank(${alias}.search, terms.q, 1)) FROM terms)`;

/**
 * bothPasses() in one statement: every-word matches first (in rank order), then any-word ones —
 * the flag says which — so PostgreSQL answers a search in one round trip, rows included, on the
 * direct pool (pg-raw.ts) with the statement prepared once per connection.
 */
function bothPassesAtOnce<Hit extends { allWords: boolean }>(rows: Hit[], words: readonly string[], limit: number): Hit[] {
  if (words.length > 1) {
    const first = rows.filter((row) => row.allWords);
    if (first.length >= limit) return first;
  }
  return rows.slice(0, limit);
}

/** A `timestamp(3)` (UTC, no zone) as ISO text, whatever the connection's time zone. */
const isoUtc = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

async function postgresMessages(url: string, search: TextSearch, extra: number): Promise<MessageHit[]> {
  const { rows } = await pgQuery<{ id: number; session_id: string; content: string; created_at: string; all_words: boolean }>(
    pgRaw(url),
    'agentcsd_search_messages',
    // The text index first, always (MATERIALIZED): on tables the planner has no statistics for yet
    // (a bulk import, a fresh database) it otherwise scanned every message of the persona's sessions.
    `WITH ${weightedTerms('messages', '$5')}, hits AS MATERIALIZED (
       SELECT id, session_id, content, created_at, search FROM messages WHERE search @@ to_tsquery('english', $1) AND session_id <> $3
     )
     SELECT m.id, m.session_id, m.content, ${isoUtc('m.created_at')} AS created_at, m.search @@ to_tsquery('english', $6) AS all_words
     FROM hits m JOIN sessions s ON s.id = m.session_id
     WHERE s.persona_name = $2
     ORDER BY all_words DESC, ${weightedRank('m')} DESC, m.id DESC LIMIT $4`,
    [tsQuery(search.words, 'any'), search.personaName, search.excludeSessionId, search.limit + extra, search.words, tsQuery(search.words, 'all')],
  );
  const hits = rows.map((row) => ({ id: Number(row.id), sessionId: row.session_id, content: row.content, createdAt: new Date(row.created_at), allWords: row.all_words }));
  return bothPassesAtOnce(hits, search.words, search.limit).map(({ allWords: _flag, ...hit }) => hit);
}

async function postgresMemories(url: string, search: TextSearch): Promise<MemoryRecord[]> {
  const { rows } = await pgQuery<Parameters<typeof memoryOf>[0] & { all_words: boolean }>(
    pgRaw(url),
    'agentcsd_search_memories',
    `WITH ${weightedTerms('memories', '$5')}
     SELECT m.id, m.persona_name, m.scope, m.kind, m.content, m.content_hash, m.importance, m.pinned, m.session_id, m.task_id, m.source_message_ids,
            ${isoUtc('m.created_at')} AS created_at, ${isoUtc('m.updated_at')} AS updated_at, ${isoUtc('m.expires_at')} AS expires_at,
            ${isoUtc('m.valid_to')} AS valid_to, m.superseded_by, m.untrusted_source, m.search @@ to_tsquery('english', $6) AS all_words
     FROM memories m
     WHERE m.search @@ to_tsquery('english', $1) AND m.persona_name = $2 AND m.valid_to IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > $3::timestamp)
     ORDER BY all_words DESC, ${weightedRank('m')} DESC, m.id DESC LIMIT $4`,
    [tsQuery(search.words, 'any'), search.personaName, utcText(search.now), search.limit, search.words, tsQuery(search.words, 'all')],
  );
  const records = rows.map((row) => ({ ...memoryOf({ ...row, id: Number(row.id), pinned: row.pinned ? 1 : 0 }), allWords: row.all_words }));
  return bothPassesAtOnce(records, search.words, search.limit).map(({ allWords: _flag, ...record }) => record);
}
