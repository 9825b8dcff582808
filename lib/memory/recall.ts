// Recall (ARCHITECTURE §12): what a persona remembers and everything said in its sessions,
// searched by text (text-search.ts: FTS5 or PostgreSQL's own, English stemming; no model, no
// download); what was said ranked as a conversation (turn-rerank.ts: neighbouring turns, the
// speaker and the dates a query names; issue 49) and, with an embedder, by meaning too
// (recall-meaning.ts, fused by score); memories and turns then fused by rank, with recency,
// importance and pinning added with weights from config; duplicates (a fact restated nine times)
// come back once; superseded facts never come back (their successor does).
import { untrustedMessageSources } from '@/lib/store/untrusted-repository';
import { estimateTokens } from '@/lib/mind/token-budget';
import type { Embedder } from './embeddings';
import { normaliseMemory, type MemoryKind, type MemoryRecord } from './memory-store';
import { meaningOf, withMeaning } from './recall-meaning';
import { searchMemories, searchMessages, topicWords, type MessageHit } from './text-search';
import { queryDates } from './query-dates';
import { turnNeighbours } from './turn-neighbours';
import { rankTurns, turnsNeedRanking, type RankedTurn } from './turn-rerank';
import { readableSessions } from '@/lib/store/people-repository';

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
  /** What was said, ranked as a conversation (turn-rerank.ts); 0 turns each off. */
  neighbour: number;
  speaker: number;
  date: number;
  dateSlackDays: number;
  /** With an embedder: the share of similarity in a turn's score, and the weight of the memories found by meaning. */
  meaning: number;
}

export const defaultRecallWeights: RecallWeights = {
  rrfK: 60,
  recency: 0.002,
  recencyHalfLifeDays: 30,
  importance: 0.004,
  pinned: 0.01,
  memoryBoost: 1.2,
  // Chosen on LoCoMo's dev conversations (docs/benchmarks.md, "Recall, change by change").
  neighbour: 0.6,
  speaker: 0.3,
  date: 0.6,
  dateSlackDays: 10,
  meaning: 0.3,
};

export interface RecallHit {
  kind: 'message' | 'memory';
  id: number;
  sessionId: string | null;
  content: string;
  createdAt: Date;
  /** Only for memories. */
  memoryKind?: MemoryKind;
  /** Only for memories: written from untrusted content (§20), from where. */
  untrustedSource?: string | null;
  score: number;
  /** Why it came back: its list, rank and the terms that matched. */
  why: string;
}

/** Recency in (0, 1]: 1 now, halving every half-life; never larger for something older. */
export function recencyScore(createdAt: Date, now: Date, halfLifeDays: number): number {
  const ageDays = Math.max(0, now.getTime() - createdAt.getTime()) / 86_400_000;
  return Math.pow(0.5, ageDays / halfLifeDays);
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
  /**
   * The session whose conversation recalls (issue 42): only what its people may read comes back —
   * nothing said in, or remembered from, a session of anyone else. Memories without a session are
   * the persona's shared ones. Undefined: the persona's all (the owner's view).
   */
  forSession?: string;
}): Promise<RecallHit[]> {
  const words = topicWords(input.query);
  if (words.length === 0 && input.embedder === null) return [];
  const weights = { ...defaultRecallWeights, ...input.weights };
  const now = input.now ?? new Date();
  // What this conversation's people may read (issue 42): filtered in the search itself when the
  // persona has sessions of anyone else; the lists by meaning are filtered after.
  const scope = input.forSession ? await readableSessions(input.personaName, input.forSession) : null;
  const readable = (sessionId: string | null) => sessionId === null || !scope?.beyond.has(sessionId);
  const sessions = scope?.readable;
  const limit = input.candidates ?? 50;
  const search = { personaName: input.personaName, words, limit, excludeSessionId: input.excludeSessionId ?? '', now, neighbours: weights.neighbour > 0, ...(sessions && { sessions }) };
  // Independent: on PostgreSQL each is its own round trips, and the query's vector an HTTP call.
  const [messages, memories, meaning] = await Promise.all([
    searchMessages(search, input.excludeMessageIds?.length ?? 0),
    searchMemories(search),
    meaningOf(input.personaName, input.query, limit, input.embedder, input.excludeSessionId ?? '', now, input.forSession ? { sessionId: input.forSession } : { personaNames: [input.personaName] }),
  ]);

  // What was said: ranked as a conversation, then by meaning too when an embedder is on.
  const lexicalTurns = rankedTurns(messages, words, input.query, now, weights).slice(0, limit + (input.excludeMessageIds?.length ?? 0));
  const turns = meaning ? await withMeaning(input.personaName, lexicalTurns, meaning, weights.meaning) : lexicalTurns;
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
  const addMessage = (message: MessageHit & { reasons?: string }, rank: number, list: string) => {
    if (excluded.has(message.id) || !readable(message.sessionId)) return;
    const { reasons, score: _score, ...said } = message;
    add({ kind: 'message', ...said }, 1 / (weights.rrfK + rank + 1), `${list} #${rank + 1}${reasons ? ` (${reasons})` : ''}`, { recency: message.createdAt, importance: 0.5, pinned: false });
  };
  const addMemory = (memory: MemoryRecord, rank: number, list: string, boost: number) => {
    if (!memory.shared && !readable(memory.sessionId)) return;
    add(
      { kind: 'memory', id: memory.id, sessionId: memory.sessionId, content: memory.content, createdAt: memory.createdAt, memoryKind: memory.kind, untrustedSource: memory.untrustedSource },
      boost / (weights.rrfK + rank + 1),
      `${list} #${rank + 1}`,
      { recency: memory.updatedAt, importance: memory.importance, pinned: memory.pinned },
    );
  };
  turns.forEach((row, rank) => addMessage(row, rank, 'text match'));
  memories.forEach((row, rank) => addMemory(row, rank, 'text match', weights.memoryBoost));
  // Memories nearest by meaning: their own list, counting `meaning` of a text match's.
  meaning?.memories.forEach((row, rank) => addMemory(row, rank, 'meaning', weights.meaning));

  const scored = [...fused.values()].map((entry) => ({
    entry,
    score: entry.rrf + weights.recency * entry.recency + weights.importance * entry.importance + (entry.pinned ? weights.pinned : 0),
  }));
  scored.sort((a, b) => b.score - a.score);
  // The same text once: the best-scored copy stands for all. Only the hits returned are described.
  const seen = new Set<string>();
  const unique: RecallHit[] = [];
  for (const { entry, score } of scored) {
    if (unique.length === (input.k ?? 10)) break;
    const key = normaliseMemory(entry.hit.content);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push({ ...entry.hit, score, why: `${entry.pinned ? 'pinned ' : ''}${entry.hit.kind === 'memory' ? entry.hit.memoryKind : 'said in a session'}, ${entry.lists.join(' + ')}` });
  }
  return unique;
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

/** The store's hits ranked as a conversation: with their neighbours, speaker and dates (turn-rerank.ts). */
function rankedTurns(hits: MessageHit[], words: readonly string[], query: string, now: Date, weights: RecallWeights): (MessageHit | RankedTurn)[] {
  if (hits.length === 0 || !turnsNeedRanking(weights)) return hits;
  const neighbours = weights.neighbour > 0 ? turnNeighbours(hits) : [];
  const dates = weights.date > 0 ? queryDates(query, now) : { spans: [], events: [] };
  return rankTurns({ hits, neighbours, words, dates, weights });
}

/**
 * Each hit's provenance (§20, issue 44): a memory written from untrusted content, a message written
 * in its session after untrusted content entered it — or null, trusted.
 */
export async function provenanceOf(hits: readonly RecallHit[]): Promise<(string | null)[]> {
  const messages = hits.flatMap((hit, index) => (hit.kind === 'message' && hit.sessionId ? [{ index, id: hit.id, sessionId: hit.sessionId }] : []));
  const sources = await untrustedMessageSources(messages);
  const result = hits.map((hit) => (hit.kind === 'memory' ? (hit.untrustedSource ?? null) : null));
  messages.forEach((message, position) => (result[message.index] = sources[position] ?? null));
  return result;
}

/** The first untrusted source behind these hits, or null. */
export async function untrustedAmong(hits: readonly RecallHit[]): Promise<string | null> {
  return (await provenanceOf(hits)).find((source) => source !== null) ?? null;
}
