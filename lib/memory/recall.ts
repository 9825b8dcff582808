// Recall (ARCHITECTURE §12): what a persona remembers and everything said in its sessions,
// searched with SQLite FTS5 (porter stemming; no model, no download), the two lists fused by rank,
// then recency, importance and pinning added with weights from config; duplicates (a fact restated
// nine times) come back once; superseded facts never come back (their successor does).
import { getDb } from '@/lib/store/db';
import { rawDb, statement } from '@/lib/store/raw-db';
import { estimateTokens } from '@/lib/orchestrator/token-budget';
import { memoryOf, normaliseMemory, type MemoryKind } from './memory-store';

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
}): Promise<RecallHit[]> {
  await getDb();
  const query = ftsQuery(input.query);
  if (!query) return [];
  const weights = { ...defaultRecallWeights, ...input.weights };
  const now = input.now ?? new Date();
  const limit = input.candidates ?? 50;
  const raw = rawDb();
  // Items with every query word first (a small, cheap set when the words are common), then the
  // rest ranked by BM25 only when those are not enough: ranking every item that has any one common
  // word is what costs at 100k.
  const all = query.includes(' OR ') ? query.replaceAll(' OR ', ' AND ') : null;
  const search = <Row extends { id: number }>(run: (match: string, count: number) => Row[]): Row[] => {
    const first = all ? run(all, limit) : [];
    if (first.length >= limit) return first;
    const seen = new Set(first.map((row) => row.id));
    return [...first, ...run(query, limit).filter((row) => !seen.has(row.id))].slice(0, limit);
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
  const messages = search((match, count) => messageStatement.all(match, input.personaName, input.excludeSessionId ?? '', count + extra) as MessageHitRow[]);
  const memories = search((match, count) => memoryStatement.all(match, input.personaName, now.toISOString().replace('Z', '+00:00'), count) as Parameters<typeof memoryOf>[0][]);

  const excluded = new Set(input.excludeMessageIds ?? []);
  const hits: RecallHit[] = [];
  messages
    .filter((row) => !excluded.has(row.id))
    .forEach((row, rank) => {
      const createdAt = new Date(row.created_at);
      const recency = recencyScore(createdAt, now, weights.recencyHalfLifeDays);
      hits.push({
        kind: 'message',
        id: row.id,
        sessionId: row.session_id,
        content: row.content,
        createdAt,
        score: 1 / (weights.rrfK + rank + 1) + weights.recency * recency + weights.importance * 0.5,
        why: `said in a session, text match #${rank + 1}`,
      });
    });
  memories.forEach((row, rank) => {
    const memory = memoryOf(row);
    const recency = recencyScore(memory.updatedAt, now, weights.recencyHalfLifeDays);
    hits.push({
      kind: 'memory',
      id: memory.id,
      sessionId: memory.sessionId,
      content: memory.content,
      createdAt: memory.createdAt,
      memoryKind: memory.kind,
      score: weights.memoryBoost / (weights.rrfK + rank + 1) + weights.recency * recency + weights.importance * memory.importance + (memory.pinned ? weights.pinned : 0),
      why: `${memory.pinned ? 'pinned ' : ''}${memory.kind}, text match #${rank + 1}`,
    });
  });
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
