// What a turn of the Internal Dialog is reminded of: recall over the persona's memories and its
// other sessions for what the user just said (or the task's goal), within a token budget. Never
// fails a turn: a recall error leaves the block out and is logged.
import { memoryBlock, recall, untrustedAmong } from './recall';

/** The `<memory>` block's share of the prompt. */
export const MEMORY_BLOCK_TOKENS = 600;

export interface TurnMemory {
  text: string;
  /** Some of it came from untrusted content (§20): where from. */
  untrustedSource: string | null;
}

export async function memoryForTurn(input: { personaName: string; sessionId: string; query: string; now?: Date; budgetTokens?: number }): Promise<TurnMemory | null> {
  if (!input.query.trim()) return null;
  try {
    // Only what this conversation's people may read (issue 42): never another person's sessions.
    const hits = await recall({ personaName: input.personaName, query: input.query, k: 12, now: input.now, excludeSessionId: input.sessionId, forSession: input.sessionId });
    if (hits.length === 0) return null;
    const block = memoryBlock(hits, input.budgetTokens ?? MEMORY_BLOCK_TOKENS);
    if (block.used.length === 0) return null;
    return {
      text: `From earlier conversations and what you noted (may be out of date; use it only if it helps):\n${block.text}`,
      untrustedSource: await untrustedAmong(block.used),
    };
  } catch (error) {
    console.error(`[memory ${input.sessionId}] recall for the turn failed; the turn goes on without it`, error);
    return null;
  }
}
