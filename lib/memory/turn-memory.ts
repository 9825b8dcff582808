// What a turn of the Internal Dialog is reminded of: recall over the persona's memories and its
// other sessions for what the user just said (or the task's goal), within a token budget. Never
// fails a turn: a recall error leaves the block out and is logged.
import { memoryBlock, provenanceOf, recall } from './recall';
import { logFailure } from '@/lib/store/store-faults';

/** The `<memory>` block's share of the prompt. */
export const MEMORY_BLOCK_TOKENS = 600;

export interface TurnMemory {
  text: string;
  /** Some of it came from untrusted content (§20): where from. */
  untrustedSource: string | null;
}

/**
 * `holdsUntrusted`: the session already holds untrusted content. When it holds none, recalled hits
 * from untrusted content stay out (issue 44: recall no longer carries a mark from session to
 * session) — unless one of them matched best, when they come in and the turn says why.
 */
export async function memoryForTurn(input: { personaName: string; sessionId: string; query: string; holdsUntrusted?: boolean; now?: Date; budgetTokens?: number }): Promise<TurnMemory | null> {
  if (!input.query.trim()) return null;
  try {
    // Only what this conversation's people may read (issue 42): never another person's sessions.
    const found = await recall({ personaName: input.personaName, query: input.query, k: 12, now: input.now, excludeSessionId: input.sessionId, forSession: input.sessionId });
    if (found.length === 0) return null;
    const provenance = await provenanceOf(found);
    const bestIsUntrusted = provenance[0] !== null;
    const hits = input.holdsUntrusted || bestIsUntrusted ? found : found.filter((_, index) => provenance[index] === null);
    const block = memoryBlock(hits, input.budgetTokens ?? MEMORY_BLOCK_TOKENS);
    if (block.used.length === 0) return null;
    const used = new Set(block.used);
    const reason = provenance.find((source, index) => source !== null && used.has(found[index]!)) ?? null;
    return {
      text: `From earlier conversations and what you noted (may be out of date; use it only if it helps):\n${block.text}`,
      untrustedSource: reason && !input.holdsUntrusted ? `${reason} (recalled: it matched this turn better than anything trusted)` : reason,
    };
  } catch (error) {
    logFailure(`[memory ${input.sessionId}] recall for the turn failed; the turn goes on without it`, error);
    return null;
  }
}
