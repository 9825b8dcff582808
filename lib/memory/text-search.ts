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
  /** The store's lexical score (BM25 on SQLite, idf-weighted ts_rank on PostgreSQL): higher is better; 0 for a turn found as a neighbour. */
  score: number;
  /**
   * The turns said just before and after it in its session (turn-neighbours.ts), when the search
   * was asked for them and read them in the same statement (PostgreSQL: no second round trip).
   */
  neighbours?: { before: MessageHit | null; after: MessageHit | null };
}

export interface TextSearch {
  personaName: string;
  words: readonly string[];
  limit: number;
  /** Messages of this session are left out ('' = none). */
  excludeSessionId: string;
  /** Memories expired by then are left out. */
  now: Date;
  /**
   * Only messages of these sessions, and memories of these sessions, shared ones or of none (issue 42: what a
   * conversation's people may read); undefined = the persona's all.
   */
  sessions?: readonly string[];
  /** Messages only: read each hit's neighbouring turns too, where the store can in the same statement. */
  neighbours?: boolean;
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
  if (search.sessions && search.words.length > 1) return sqliteScopedMessages(search, search.sessions, search.limit + extra);
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

type SqliteHitRow = { id: number; session_id: string; content: string; created_at: string; score: number };
const sqliteHit = (row: SqliteHitRow): MessageHit => ({ id: row.id, sessionId: row.session_id, content: row.content, createdAt: new Date(row.created_at), score: row.score });

async function sqliteMessages(search: TextSearch, mode: 'all' | 'any', count: number): Promise<MessageHit[]> {
  const rows = statement(
    rawDb(),
    `SELECT m.id, m.session_id, m.content, m.created_at, -bm25(message_fts) AS score FROM message_fts
       JOIN messages m ON m.id = message_fts.rowid
       JOIN sessions s ON s.id = m.session_id
     WHERE message_fts MATCH ? AND s.persona_name = ? AND m.session_id != ?${search.sessions ? ' AND m.session_id IN (SELECT value FROM json_each(?))' : ''}
     ORDER BY bm25(message_fts), m.id DESC LIMIT ?`,
  ).all(ftsMatch(search.words, mode), search.personaName, search.excludeSessionId, ...(search.sessions ? [JSON.stringify(search.sessions)] : []), count) as SqliteHitRow[];
  return rows.map(sqliteHit);
}

/**
 * Scoped to a few sessions (issue 42), both passes in one statement: the any-word matches of the
 * readable sessions, every-word ones first (a rowid set FTS5 finds once), each in bm25 order — the
 * same hits as `bothPasses` (bm25 of the AND and the OR query is one sum over the same terms), without
 * a second scan of the index when the every-word pass alone cannot fill the list, as it rarely can
 * from a person's own few sessions.
 */
function sqliteScopedMessages(search: TextSearch, sessions: readonly string[], count: number): MessageHit[] {
  const rows = statement(
    rawDb(),
    `SELECT m.id, m.session_id, m.content, m.created_at, -bm25(message_fts) AS score FROM message_fts
       JOIN messages m ON m.id = message_fts.rowid
       JOIN sessions s ON s.id = m.session_id
     WHERE message_fts MATCH ? AND s.persona_name = ? AND m.session_id != ? AND m.session_id IN (SELECT value FROM json_each(?))
     ORDER BY m.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ?) DESC, bm25(message_fts), m.id DESC LIMIT ?`,
  ).all(ftsMatch(search.words, 'any'), search.personaName, search.excludeSessionId, JSON.stringify(sessions), ftsMatch(search.words, 'all'), count) as SqliteHitRow[];
  return rows.map(sqliteHit);
}

async function sqliteMemories(search: TextSearch, mode: 'all' | 'any', count: number): Promise<MemoryRecord[]> {
  const rows = statement(
    rawDb(),
    `SELECT memories.* FROM memory_fts JOIN memories ON memories.id = memory_fts.rowid
     WHERE memory_fts MATCH ? AND memories.persona_name = ? AND memories.valid_to IS NULL
       AND (memories.expires_at IS NULL OR memories.expires_at > ?)${search.sessions ? ' AND (memories.session_id IS NULL OR memories.shared = 1 OR memories.session_id IN (SELECT value FROM json_each(?)))' : ''}
     ORDER BY bm25(memory_fts) LIMIT ?`,
  ).all(ftsMatch(search.words, mode), search.personaName, search.now.toISOString().replace('Z', '+00:00'), ...(search.sessions ? [JSON.stringify(search.sessions)] : []), count) as Parameters<typeof memoryOf>[0][];
  return rows.map(memoryOf);
}

// PostgreSQL stores Prisma's DateTime as `timestamp(3)` (UTC, no zone): compared with the UTC wall
// clock as text, whatever the connection's time zone.
const utcText = (date: Date) => date.toISOString().slice(0, 23).replace('T', ' ');

/**
 * BM25's weighting in PostgreSQL's terms (ts_rank alone has no inverse document frequency, which
 * cost 10 points of recall@10 on LoCoMo): each query word's rank in the item (ts_rank, normalised
 * by length) times the word's idf over the table, `ln(1 + (N - df + 0.5) / (df + 0.5))`, summed.
 * A word's document frequency comes from the column's statistics — ANALYZE keeps the frequencies of
 * a tsvector column's commonest lexemes (`pg_stats.most_common_elem_freqs`), a word not among them
 * is rarer than the rarest listed (half of it, as PostgreSQL's own estimates take) — and is counted
 * through the index only while the table has no statistics yet. N is the planner's row count.
 * Estimates within autovacuum's 10% keep the ranking's order; counting cost a search 3 ms at 10k.
 */
const weightedTerms = (table: 'messages' | 'memories', wordsParam: string) => `queries AS MATERIALIZED (
  -- Each word's tsquery and lexeme made once (inlined, the planner made them again for every row).
  SELECT to_tsquery('english', word) AS q, (tsvector_to_array(to_tsvector('english', word)))[1] AS lexeme FROM unnest(${wordsParam}::text[]) AS word
), total AS MATERIALIZED (
  SELECT CASE WHEN c.reltuples > 0 THEN c.reltuples::float8 ELSE (SELECT COUNT(*)::float8 FROM ${table} WHERE search IS NOT NULL) END AS n
  FROM pg_class c WHERE c.oid = '${table}'::regclass
), stats AS MATERIALIZED (
  SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
  WHERE schemaname = current_schema() AND tablename = '${table}' AND attname = 'search' AND most_common_elems IS NOT NULL
), terms AS MATERIALIZED (
  SELECT t.q, ln(1 + (total.n - df.n + 0.5) / (df.n + 0.5)) AS idf
  FROM queries AS t, total,
       LATERAL (SELECT COALESCE(
         (SELECT total.n * COALESCE(s.freqs[array_position(s.elems, t.lexeme)], s.freqs[cardinality(s.elems) + 1] / 2) FROM stats s),
         (SELECT COUNT(*)::float8 FROM ${table} WHERE search @@ t.q)
       ) AS n) AS df
)`;
const weightedRank = (alias: string) => `(SELECT SUM(terms.idf * ts_rank(${alias}.search, terms.q, 1)) FROM terms)`;
/**
 * The cheap first score: the idf of the query words the item holds (a lookup per word, no
 * positions). Items are ranked in two stages: this over every hit, then the weighted rank over the
 * best `CANDIDATES` times the limit only — ts_rank per word per hit was most of a search's time.
 */
const coarseRank = (alias: string) => `(SELECT SUM(terms.idf) FROM terms WHERE ${alias}.search @@ terms.q)`;
const CANDIDATES = 8;

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
  type Side = { [key in `${'before' | 'after'}_${'id' | 'content' | 'at'}`]: string | number | null };
  const { rows } = await pgQuery<{ id: number; session_id: string; content: string; created_at: string; all_words: boolean; rank: number } & Side>(
    pgRaw(url),
    'agentcsd_search_messages',
    // The text index first, always (MATERIALIZED): on tables the planner has no statistics for yet
    // (a bulk import, a fresh database) it otherwise scanned every message of the persona's sessions.
    // Every-word matches first: when the persona has at least `limit` of them, only they are
    // read and ranked (the any-word pass, thousands of rows for common words, is skipped); else
    // the any-word hits join them, ranked in two stages (coarseRank, then the weighted rank of the
    // best few). The content is read for the rows returned only, with each one's neighbouring turns
    // when asked ($8): two index steps back and forth in its session.
    `WITH ${weightedTerms('messages', '$5')}, all_hits AS MATERIALIZED (
       SELECT m.id, m.search FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE m.search @@ to_tsquery('english', $6) AND m.session_id <> $3 AND s.persona_name = $2 AND ($7::text[] IS NULL OR m.session_id = ANY($7::text[]))
     ), enough AS MATERIALIZED (
       SELECT COUNT(*) >= $4 AS yes FROM all_hits
     ), hits AS MATERIALIZED (
       SELECT id, search, true AS all_words FROM all_hits
       UNION ALL
       SELECT m.id, m.search, false FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE NOT (SELECT yes FROM enough) AND m.search @@ to_tsquery('english', $1) AND NOT m.search @@ to_tsquery('english', $6)
         AND m.session_id <> $3 AND s.persona_name = $2 AND ($7::text[] IS NULL OR m.session_id = ANY($7::text[]))
     ), candidates AS MATERIALIZED (
       SELECT m.id, m.search, m.all_words FROM hits m
       ORDER BY m.all_words DESC, ${coarseRank('m')} DESC, m.id DESC LIMIT $4 * ${CANDIDATES}
     ), ranked AS (
       SELECT m.id, m.all_words, ${weightedRank('m')} AS rank FROM candidates m
       ORDER BY m.all_words DESC, rank DESC, m.id DESC LIMIT $4
     )
     SELECT m.id, m.session_id, m.content, ${isoUtc('m.created_at')} AS created_at, r.all_words, r.rank,
            b.id AS before_id, b.content AS before_content, ${isoUtc('b.created_at')} AS before_at,
            a.id AS after_id, a.content AS after_content, ${isoUtc('a.created_at')} AS after_at
     FROM ranked r JOIN messages m ON m.id = r.id
     LEFT JOIN LATERAL (
       SELECT p.id, p.content, p.created_at FROM messages p
       WHERE $8 AND p.session_id = m.session_id AND p.id < m.id AND p.tag IN ('ED_user', 'ED_agent') ORDER BY p.id DESC LIMIT 1
     ) b ON true
     LEFT JOIN LATERAL (
       SELECT p.id, p.content, p.created_at FROM messages p
       WHERE $8 AND p.session_id = m.session_id AND p.id > m.id AND p.tag IN ('ED_user', 'ED_agent') ORDER BY p.id LIMIT 1
     ) a ON true
     ORDER BY r.all_words DESC, r.rank DESC, r.id DESC`,
    [tsQuery(search.words, 'any'), search.personaName, search.excludeSessionId, search.limit + extra, search.words, tsQuery(search.words, 'all'), search.sessions ?? null, search.neighbours ?? false],
  );
  const side = (row: Side, name: 'before' | 'after', sessionId: string): MessageHit | null =>
    row[`${name}_id`] === null ? null : { id: Number(row[`${name}_id`]), sessionId, content: String(row[`${name}_content`]), createdAt: new Date(String(row[`${name}_at`])), score: 0 };
  const hits = rows.map((row) => ({
    id: Number(row.id),
    sessionId: row.session_id,
    content: row.content,
    createdAt: new Date(row.created_at),
    score: Number(row.rank),
    allWords: row.all_words,
    ...(search.neighbours && { neighbours: { before: side(row, 'before', row.session_id), after: side(row, 'after', row.session_id) } }),
  }));
  return bothPassesAtOnce(hits, search.words, search.limit).map(({ allWords: _flag, ...hit }) => hit);
}

async function postgresMemories(url: string, search: TextSearch): Promise<MemoryRecord[]> {
  const { rows } = await pgQuery<Parameters<typeof memoryOf>[0] & { all_words: boolean }>(
    pgRaw(url),
    'agentcsd_search_memories',
    `WITH ${weightedTerms('memories', '$5')}, candidates AS MATERIALIZED (
       SELECT m.*, m.search @@ to_tsquery('english', $6) AS all_words
       FROM memories m
       WHERE m.search @@ to_tsquery('english', $1) AND m.persona_name = $2 AND m.valid_to IS NULL
         AND (m.expires_at IS NULL OR m.expires_at > $3::timestamp)
         AND ($7::text[] IS NULL OR m.session_id IS NULL OR m.shared OR m.session_id = ANY($7::text[]))
       ORDER BY all_words DESC, ${coarseRank('m')} DESC, m.id DESC LIMIT $4 * ${CANDIDATES}
     )
     SELECT m.id, m.persona_name, m.scope, m.kind, m.content, m.content_hash, m.importance, m.pinned, m.session_id, m.task_id, m.source_message_ids,
            ${isoUtc('m.created_at')} AS created_at, ${isoUtc('m.updated_at')} AS updated_at, ${isoUtc('m.expires_at')} AS expires_at,
            ${isoUtc('m.valid_to')} AS valid_to, m.superseded_by, m.untrusted_source, m.shared, m.owner_key, m.all_words
     FROM candidates m
     ORDER BY m.all_words DESC, ${weightedRank('m')} DESC, m.id DESC LIMIT $4`,
    [tsQuery(search.words, 'any'), search.personaName, utcText(search.now), search.limit, search.words, tsQuery(search.words, 'all'), search.sessions ?? null],
  );
  const records = rows.map((row) => ({ ...memoryOf({ ...row, id: Number(row.id), pinned: row.pinned ? 1 : 0 }), allWords: row.all_words }));
  return bothPassesAtOnce(records, search.words, search.limit).map(({ allWords: _flag, ...record }) => record);
}
