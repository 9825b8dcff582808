// Recall (ARCHITECTURE §12): what a persona remembers and everything said in its sessions,
// searched with SQLite FTS5 (porter stemming; no model, no download), the two lists fused by rank,
// then recency, importance and pinning added with weights from config; duplicates (a fact restated
// nine times) come back once; superseded facts never come back (their successor does).
import { getDb } from '@/lib/store/db';
import { rawDb, statement } from '@/lib/store/raw-db';
import { estimateTokens } from '@/lib/orchestrator/token-budget';
import type { Embedder } from './embeddings';
import { configuredEmbedder } from './embeddings';
import { memoryOf, normaliseMemory, type MemoryKind } from './memory-store';
import { nearestItems } from './vector-index';

export interface RecallWeights {
  /** Reciprocal-rank constant: the larger, the flatter the fusion of the two lists. */
  rrfK: number;
  /** Added at age 0, halving every `recencyHalfLifeDays`. */
  recency: number;
  recencyHalfLifeDays: number;
  /** Times the memory's importance (0..1); messages count as 0.5. */
  importance: number;
  pinned: number;
  /** A memory's rank counts this much more than a message's (it is distilled). */
  memoryBoost: number;
}

export const defaultRecallWeights: RecallWeights = {
  rrfK: 60,
  recency: 0.002,
  recencyHalfLifeDays: 30,
  importance: 0.004,
  pinned: 0.01,
  memoryBoost: 1.2,
};

export interface RecallHit {
  kind: 'message' | 'memory';
  id: number;
  sessionId: string | null;
  content: string;
  createdAt: Date;
  /** Only for memories. */
  memoryKind?: MemoryKind;
  score: number;
  /** Why it came back: its list, rank and the terms that matched. */
  why: string;
}

/** English words that carry no topic: left out of the query (the index keeps them). */
const STOPWORDS = new Set(
  'a an and are as at be been being but by can could did do does doing for from had has have having he her hers him his how i if in into is it its me my of on or our she so than that the their them then there these they this those to too up us was we were what when where which who whom why will with would you your yours about after again all also am any because before between both did each few further here just more most no nor not now off once only other out over own same should some such through under until very while'.split(
    ' ',
  ),
);

/** The query as FTS5 syntax: its topic words, each quoted (so no operator can be injected), OR-ed. */
export function ftsQuery(text: string): string | null {
  const words = [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOPWORDS.has(word) && word.length > 1))];
  if (words.length === 0) return null;
  return words.slice(0, 32).map((word) => `"${word}"`).join(' OR ');
}

/** Recency in (0, 1]: 1 now, halving every half-life; never larger for something older. */
export function recencyScore(createdAt: Date, now: Date, halfLifeDays: number): number {
  const ageDays = Math.max(0, now.getTime() - createdAt.getTime()) / 86_400_000;
  return Math.pow(0.5, ageDays / halfLifeDays);
}

interface MessageHitRow {
  id: number;
  session_id: string;
  content: string;
  created_at: string;
}

export async function recall(input: {
  personaName: string;
  query: string;
  k?: number;
  now?: Date;
  weights?: Partial<RecallWeights>;
  /** Messages left out (the ones being answered right now). */
  excludeMessageIds?: readonly number[];
  /** A session whose messages are left out (the turn's own: its window has them). */
  excludeSessionId?: string;
  /** How many of each list are fused. */
  candidates?: number;
  /** Hybrid recall's embedder; undefined = the one configured in Settings › Memory, null = lexical only. */
  embedder?: Embedder | null;
}): Promise<RecallHit[]> {
  await getDb();
  const query = ftsQuery(input.query);
  if (!query && input.embedder === null) return [];
  const weights = { ...defaultRecallWeights, ...input.weights };
  const now = input.now ?? new Date();
  const limit = input.candidates ?? 50;
  const raw = rawDb();
  // Items with every query word first (a small, cheap set when the words are common), then the
  // rest ranked by BM25 only when those are not enough: ranking every item that has any one common
  // word is what costs at 100k.
  const all = query?.includes(' OR ') ? query.replaceAll(' OR ', ' AND ') : null;
  const search = <Row extends { id: number }>(run: (match: string, count: number) => Row[]): Row[] => {
    const first = all ? run(all, limit) : [];
    if (first.length >= limit) return first;
    const seen = new Set(first.map((row) => row.id));
    return [...first, ...run(query!, limit).filter((row) => !seen.has(row.id))].slice(0, limit);
  };
  const messageStatement = statement(
    raw,
    `SELECT m.id, m.session_id, m.content, m.created_at FROM message_fts
       JOIN messages m ON m.id = message_fts.rowid
       JOIN sessions s ON s.id = m.session_id
     WHERE message_fts MATCH ? AND s.persona_name = ? AND m.session_id != ?
     ORDER BY bm25(message_fts) LIMIT ?`,
  );
  const memoryStatement = statement(
    raw,
    `SELECT memories.* FROM memory_fts JOIN memories ON memories.id = memory_fts.rowid
     WHERE memory_fts MATCH ? AND memories.persona_name = ? AND memories.valid_to IS NULL
       AND (memories.expires_at IS NULL OR memories.expires_at > ?)
     ORDER BY bm25(memory_fts) LIMIT ?`,
  );
  const extra = input.excludeMessageIds?.length ?? 0;
  const messages = !query ? [] : search((match, count) => messageStatement.all(match, input.personaName, input.excludeSessionId ?? '', count + extra) as MessageHitRow[]);
  const memories = !query ? [] : search((match, count) => memoryStatement.all(match, input.personaName, now.toISOString().replace('Z', '+00:00'), count) as Parameters<typeof memoryOf>[0][]);

  const excluded = new Set(input.excludeMessageIds ?? []);
  // Reciprocal-rank fusion: an item found by several lists adds their terms; recency, importance
  // and pinning are added once.
  const fused = new Map<string, { hit: RecallHit; rrf: number; recency: number; importance: number; pinned: boolean; lists: string[] }>();
  const add = (hit: Omit<RecallHit, 'score' | 'why'>, rrf: number, list: string, terms: { recency: Date; importance: number; pinned: boolean }) => {
    const key = `${hit.kind}:${hit.id}`;
    const entry = fused.get(key);
    if (entry) {
      entry.rrf += rrf;
      entry.lists.push(list);
      return;
    }
    fused.set(key, {
      hit: { ...hit, score: 0, why: '' },
      rrf,
      recency: recencyScore(terms.recency, now, weights.recencyHalfLifeDays),
      importance: terms.importance,
      pinned: terms.pinned,
      lists: [list],
    });
  };
  const addMessage = (row: MessageHitRow, rank: number, list: string) => {
    if (excluded.has(row.id)) return;
    const createdAt = new Date(row.created_at);
    add({ kind: 'message', id: row.id, sessionId: row.session_id, content: row.content, createdAt }, 1 / (weights.rrfK + rank + 1), `${list} #${rank + 1}`, { recency: createdAt, importance: 0.5, pinned: false });
  };
  const addMemory = (row: Parameters<typeof memoryOf>[0], rank: number, list: string, boost: number) => {
    const memory = memoryOf(row);
    add(
      { kind: 'memory', id: memory.id, sessionId: memory.sessionId, content: memory.content, createdAt: memory.createdAt, memoryKind: memory.kind },
      boost / (weights.rrfK + rank + 1),
      `${list} #${rank + 1}`,
      { recency: memory.updatedAt, importance: memory.importance, pinned: memory.pinned },
    );
  };
  messages.forEach((row, rank) => addMessage(row, rank, 'text match'));
  memories.forEach((row, rank) => addMemory(row, rank, 'text match', weights.memoryBoost));
  // By meaning: one list of messages and memories together, ranked by similarity alone.
  for (const semantic of await semanticLists(input.personaName, input.query, limit, input.embedder, input.excludeSessionId ?? '', now)) {
    if (semantic.kind === 'message') addMessage(semantic.row, semantic.rank, 'meaning');
    else addMemory(semantic.row, semantic.rank, 'meaning', 1);
  }

  const hits: RecallHit[] = [...fused.values()].map((entry) => ({
    ...entry.hit,
    score: entry.rrf + weights.recency * entry.recency + weights.importance * entry.importance + (entry.pinned ? weights.pinned : 0),
    why: `${entry.pinned ? 'pinned ' : ''}${entry.hit.kind === 'memory' ? entry.hit.memoryKind : 'said in a session'}, ${entry.lists.join(' + ')}`,
  }));
  hits.sort((a, b) => b.score - a.score);
  // The same text once: the best-scored copy stands for all.
  const seen = new Set<string>();
  const unique = hits.filter((hit) => {
    const key = normaliseMemory(hit.content);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.slice(0, input.k ?? 10);
}

/**
 * The `<memory>` part of a prompt: the best hits that fit `budgetTokens`, one line each, with
 * where they come from (the context viewer shows this exact text).
 */
export function memoryBlock(hits: readonly RecallHit[], budgetTokens: number): { text: string; used: RecallHit[] } {
  const lines: string[] = [];
  const used: RecallHit[] = [];
  let tokens = 0;
  for (const hit of hits) {
    const date = hit.createdAt.toISOString().slice(0, 10);
    const line = `- ${hit.kind === 'memory' ? `[${hit.memoryKind} #${hit.id}, ${date}]` : `[said ${date}]`} ${hit.content.replace(/\s+/g, ' ').slice(0, 600)}`;
    const cost = estimateTokens(line) + 1;
    if (tokens + cost > budgetTokens) continue;
    tokens += cost;
    lines.push(line);
    used.push(hit);
  }
  return { text: lines.join('\n'), used };
}

/** How long a recall waits for its query's vector before going on lexically. */
const QUERY_EMBED_TIMEOUT_MS = 3_000;

type SemanticRow = { kind: 'message'; row: MessageHitRow; rank: number } | { kind: 'memory'; row: Parameters<typeof memoryOf>[0]; rank: number };

/**
 * The nearest items by meaning, messages and memories in one list ranked from 0, with the same filters as the text lists
 * (another persona's items never; superseded and expired memories and the excluded session's
 * messages left out). Empty without an embedder; a failing one leaves recall lexical.
 */
async function semanticLists(personaName: string, query: string, limit: number, given: Embedder | null | undefined, excludeSessionId: string, now: Date): Promise<SemanticRow[]> {
  const embedder = given === undefined ? await configuredEmbedder() : given;
  if (!embedder) return [];
  let vector: Float32Array;
  try {
    [vector] = (await embedder.embed([query], AbortSignal.timeout(QUERY_EMBED_TIMEOUT_MS))) as [Float32Array];
  } catch (error) {
    console.warn(`[memory] the query could not be embedded; recall is lexical this time: ${(error as Error).message}`);
    return [];
  }
  const nearest = nearestItems(personaName, embedder.model, vector, limit * 2);
  const raw = rawDb();
  const rows: SemanticRow[] = [];
  const at = now.toISOString().replace('Z', '+00:00');
  for (const item of nearest) {
    if (item.similarity <= 0) break; // unrelated (or opposite) by this model's measure
    if (item.kind === 'message') {
      const row = statement(
        raw,
        `SELECT m.id, m.session_id, m.content, m.created_at FROM messages m JOIN sessions s ON s.id = m.session_id
         WHERE m.id = ? AND s.persona_name = ? AND m.session_id != ?`,
      ).get(item.id, personaName, excludeSessionId) as MessageHitRow | undefined;
      if (row) rows.push({ kind: 'message', row, rank: rows.length });
    } else {
      const row = statement(raw, 'SELECT * FROM memories WHERE id = ? AND persona_name = ? AND valid_to IS NULL AND (expires_at IS NULL OR expires_at > ?)').get(item.id, personaName, at) as
        | Parameters<typeof memoryOf>[0]
        | undefined;
      if (row) rows.push({ kind: 'memory', row, rank: rows.length });
    }
    if (rows.length >= limit) break;
  }
  return rows;
}
