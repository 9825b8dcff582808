// Embeddings within the allowances (issue 59 §3): an embeddings endpoint may charge for every call,
// so each call is a model call like the others — its worst case (the texts' tokens, as estimated,
// priced from the catalog) reserved on every allowance that applies before it is made, what the
// endpoint counted settled after, and a row in llm_calls on the `embeddings` layer (Spending and
// the session's table show it). Recall for a conversation answers to that conversation's
// allowances — its persona's, the app's and its people's — so a person whose allowance is spent
// reaches no paid endpoint by recalling; indexing answers to the app's and the personas'. The model
// built into the app charges nothing and is not metered.
import { estimateCost } from '@/lib/backends/pricing';
import { describeRefusal, untilNextDay } from '@/lib/mind/allowance-guard';
import { estimateTokens } from '@/lib/mind/token-budget';
import { allowancesForPersonas, allowancesForSession, reserve, settle, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { insertLlmCall } from '@/lib/store/mind-repository';
import { EmbeddingError, type Embedder } from './embedder';
import { errorText } from '@/lib/errors/error-text';

/** Who pays for an embedding: a conversation, or (indexing) the personas whose items are embedded. */
export type EmbeddingPayer = { sessionId: string } | { personaNames: readonly string[] };

/** The allowance refused the call: nothing was sent to the endpoint. */
export class EmbeddingRefused extends EmbeddingError {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** The texts' tokens as the kernel estimates any prompt's (each cut as the embedder cuts it, at least one). */
const textsTokens = (texts: readonly string[]) => texts.reduce((sum, text) => sum + Math.max(1, estimateTokens(text.slice(0, 4_000))), 0);

function priced(model: string, tokens: number): number | null {
  const usd = estimateCost(model, { inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  return usd === 'unknown' ? null : usd;
}

/** The embedder, its every call reserved, settled and recorded for `payer` (the built-in model as it is). */
export function meteredEmbedder(embedder: Embedder, payer: EmbeddingPayer, now: () => Date = () => new Date()): Embedder {
  if (!embedder.endpoint) return embedder;
  return {
    model: embedder.model,
    endpoint: embedder.endpoint,
    async embed(texts, signal, usage) {
      if (texts.length === 0) return [];
      const allowances: AllowanceRecord[] = 'sessionId' in payer ? await allowancesForSession(payer.sessionId) : await allowancesForPersonas(payer.personaNames);
      const estimated = textsTokens(texts);
      const worst = { usd: priced(embedder.model, estimated) ?? 0, tokens: estimated };
      const started = now();
      const held = await reserve(allowances, worst, started);
      if (!held.ok) throw new EmbeddingRefused(`Embeddings were not asked: ${describeRefusal(held.refusal, worst)}`, untilNextDay(started, held.refusal.allowance.timeZone));
      let counted: number | null = null;
      let failure: Error | null = null;
      try {
        return await embedder.embed(texts, signal, (tokens) => {
          counted = tokens;
          usage?.(tokens);
        });
      } catch (error) {
        failure = error as Error;
        throw error;
      } finally {
        // A failed call is taken as having cost nothing; one that answered without usage, as estimated.
        const tokens = failure ? 0 : (counted ?? estimated);
        const usd = failure ? 0 : priced(embedder.model, tokens);
        await settle(held.reservation, { usd: usd ?? 0, tokens });
        await insertLlmCall({
          sessionId: 'sessionId' in payer ? payer.sessionId : null,
          layer: 'embeddings',
          backend: 'openai_compatible',
          model: embedder.model,
          startedAt: started,
          firstTokenMs: null,
          durationMs: Math.max(0, now().getTime() - started.getTime()),
          inputTokens: tokens,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: usd,
          finishReason: failure ? null : 'stop',
          error: failure ? failure.message : null,
        }).catch((error: unknown) => console.warn('[memory] an embeddings call could not be recorded:', errorText(error)));
      }
    },
  };
}
