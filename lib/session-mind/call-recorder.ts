// Every model call leaves a row in llm_calls and, when it reported usage, moves the session's
// totals and tells the page (the usage table updates live).
import type { LayerModelConfig } from '@/lib/config/model-config';
import { insertLlmCall, type CallLayer, type UsageTotals } from '@/lib/store/mind-repository';
import type { EventBus } from '@/lib/mind/events';
import type { ModelCallResult } from '@/lib/mind/model-call';
import { logFailure } from '@/lib/store/store-faults';

export async function recordLlmCall(input: {
  sessionId: string;
  layer: CallLayer;
  config: LayerModelConfig;
  result: ModelCallResult;
  /** The session's running totals for this layer (updated in place). */
  totals: UsageTotals;
  bus: EventBus;
  /** The task whose step made the call. */
  traceId?: string;
}): Promise<void> {
  const { result, layer, totals } = input;
  const usage = result.usage;
  const costUsd = usage && usage.costUsd !== 'unknown' ? usage.costUsd : null;
  try {
    await insertLlmCall({
      sessionId: input.sessionId,
      layer,
      backend: input.config.backend,
      model: input.config.model,
      startedAt: result.startedAt,
      firstTokenMs: result.firstTokenMs,
      durationMs: result.durationMs,
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      cacheReadTokens: usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
      costUsd,
      finishReason: result.aborted ? 'aborted' : result.finishReason,
      error: result.error ? `${result.error.kind}: ${result.error.message}` : null,
      traceId: input.traceId ?? null,
    });
  } catch (error) {
    logFailure(`[mind ${input.sessionId}] could not record an LLM call`, error);
  }
  if (!usage) return;
  totals.calls++;
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cacheReadTokens += usage.cacheReadTokens;
  totals.cacheWriteTokens += usage.cacheWriteTokens;
  if (costUsd === null) totals.unpricedCalls++;
  else totals.costUsd += costUsd;
  input.bus.emit('usage', input.sessionId, {
    layer,
    call: {
      backend: input.config.backend,
      model: input.config.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      costUsd: costUsd ?? 0,
      priced: costUsd !== null,
    },
    totals: { ...totals },
  });
}
