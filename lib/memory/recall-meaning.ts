// Recall by meaning (ARCHITECTURE §12, issue 49), when an embedder is on: the query's vector, the
// items nearest to it, and the fusion with the lexical ranking. Fused by score, not by rank: each
// turn's lexical score (relative to the best) and its similarity to the query are mixed,
// `meaning` of it similarity, so a turn both lists find rises and one found by meaning alone can
// enter. Equal-weight reciprocal-rank fusion, as before, lowered LoCoMo recall with the built-in
// model (recall@10 74.0 → 66.9 in the harness): a weak list's ranks count as much as a strong one's.
import { getDb } from '@/lib/store/db';
import type { Embedder } from './embeddings';
import { configuredEmbedder } from './embeddings';
import { meteredEmbedder, type EmbeddingPayer } from './embedding-meter';
import { findMemories, type MemoryRecord } from './memory-store';
import type { MessageHit } from './text-search';
import type { RankedTurn } from './turn-rerank';
import { nearestItems, similaritiesTo } from './vector-index';
import { errorText } from '@/lib/errors/error-text';

/** How long a recall waits for its query's vector before going on lexically. */
const QUERY_EMBED_TIMEOUT_MS = 3_000;

export interface Meaning {
  model: string;
  vector: Float32Array;
  /** Turns nearest by meaning, with their similarity (the excluded session's left out). */
  messages: (MessageHit & { similarity: number })[];
  /** Live memories nearest by meaning, best first. */
  memories: MemoryRecord[];
}

/**
 * The query's vector and the items nearest to it, with the same filters as the text lists (another
 * persona's items never; superseded and expired memories and the excluded session's messages left
 * out). Null without an embedder; a failing one leaves recall lexical.
 */
export async function meaningOf(personaName: string, query: string, limit: number, given: Embedder | null | undefined, excludeSessionId: string, now: Date, payer: EmbeddingPayer = { personaNames: [personaName] }): Promise<Meaning | null> {
  const chosen = given === undefined ? await configuredEmbedder() : given;
  if (!chosen) return null;
  // The query's embedding is paid by the conversation that recalls (its allowances; refused: lexical this time).
  const embedder = meteredEmbedder(chosen, payer);
  let vector: Float32Array;
  try {
    [vector] = (await embedder.embed([query], AbortSignal.timeout(QUERY_EMBED_TIMEOUT_MS))) as [Float32Array];
  } catch (error) {
    console.warn(`[memory] the query could not be embedded; recall is lexical this time: ${errorText(error)}`);
    return null;
  }
  // Unrelated (or opposite) by this model's measure: similarity 0 or less.
  const nearest = (await nearestItems(personaName, embedder.model, vector, limit * 2)).filter((item) => item.similarity > 0);
  const similarity = new Map(nearest.map((item) => [`${item.kind}:${item.id}`, item.similarity]));
  const db = await getDb();
  const ids = (kind: 'message' | 'memory') => nearest.filter((item) => item.kind === kind).map((item) => item.id);
  const [messages, memories] = await Promise.all([
    db.message.findMany({ where: { id: { in: ids('message') }, sessionId: { not: excludeSessionId }, session: { personaName } }, select: { id: true, sessionId: true, content: true, createdAt: true } }),
    findMemories(ids('memory')),
  ]);
  const live = memories.filter((memory) => memory.personaName === personaName && memory.validTo === null && (memory.expiresAt === null || memory.expiresAt > now));
  const byNearness = <T extends { id: number }>(kind: string, rows: T[]) => rows.sort((a, b) => similarity.get(`${kind}:${b.id}`)! - similarity.get(`${kind}:${a.id}`)!).slice(0, limit);
  return {
    model: embedder.model,
    vector,
    messages: byNearness('message', messages.map((row) => ({ ...row, score: 0, similarity: similarity.get(`message:${row.id}`)! }))),
    memories: byNearness('memory', live),
  };
}

/**
 * The turns found by words and those found by meaning, in one order: (1 − share) × the lexical
 * score over the best one's + share × the similarity (below 0 counts 0). A turn not embedded yet
 * keeps its lexical standing (its similarity taken as its lexical share), so a fresh message is not
 * pushed down for being new.
 */
export async function withMeaning(personaName: string, turns: readonly (MessageHit | RankedTurn)[], meaning: Meaning, share: number): Promise<(MessageHit | RankedTurn)[]> {
  const best = Math.max(0, ...turns.map((turn) => turn.score)) || 1;
  const similarity = await similaritiesTo(personaName, meaning.model, meaning.vector, turns.map((turn) => ({ kind: 'message' as const, id: turn.id })));
  const mixed = new Map<number, MessageHit | RankedTurn>();
  for (const turn of turns) {
    const lexical = turn.score / best;
    const near = similarity.get(`message:${turn.id}`);
    mixed.set(turn.id, { ...turn, score: (1 - share) * lexical + share * (near === undefined ? lexical : Math.max(0, near)) });
  }
  for (const { similarity: near, ...turn } of meaning.messages) {
    if (mixed.has(turn.id)) continue;
    mixed.set(turn.id, { ...turn, score: share * near, reasons: 'by meaning' });
  }
  return [...mixed.values()].filter((turn) => turn.score > 0).sort((a, b) => b.score - a.score || b.id - a.id);
}
