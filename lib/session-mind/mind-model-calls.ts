// How a mind calls a model: the exact prompt kept for the context viewer, the backend's retries
// shown while they wait, the token calibration fed, and every call recorded with its usage.
import type { MindContext } from './mind-context';
import { yieldToIO } from './mind-context';
import { recordLlmCall } from './call-recorder';
import type { PromptRecord } from '@/lib/mind/events';
import type { LayerHealth } from './layer-health';
import { callModel } from '@/lib/mind/model-call';
import { captureContent, inSpan } from '@/lib/telemetry/traces';
import type { MindDependencies } from './mind-dependencies';
import { estimateRequestTokens } from '@/lib/mind/token-budget';
import { actualCost, holdAllowance, noticesDue, settleAllowance } from '@/lib/mind/allowance-guard';
import { BackendError } from '@/lib/backends/backend-error';
import { ownerOverride } from '@/lib/people/rights';
import type { ModelCallResult } from '@/lib/mind/model-call';
import type { CallLayer, UsageTotals } from '@/lib/store/mind-repository';
import { logFailure } from '@/lib/store/store-faults';
import { failoverReason, modelChain } from '@/lib/mind/failover';

/** What a mind's model calls use of its dependencies. */
export type ModelCallDependencies = Pick<MindDependencies, 'bus' | 'clock' | 'createBackend' | 'retryPolicy' | 'random' | 'stallTimeoutMs' | 'fallbackCoolDownMs' | 'calibration'>;

export function mindModelCalls(input: {
  sessionId: string;
  deps: ModelCallDependencies;
  health: LayerHealth;
  /** The last prompt of each layer (the context viewer reads it). */
  prompts: Partial<Record<CallLayer, PromptRecord>>;
  usage: Record<CallLayer, UsageTotals>;
  /** The mind's state changed (a retry is waiting). */
  changed(): void;
}): MindContext['callModel'] {
  const { deps, health } = input;
  // A layer's models in order (issue 78 §2): a call that fails with what another backend could serve,
  // before it spoke, goes to the next; the one that answered is kept while the first cools down.
  return async (call) => {
    const chain = modelChain(call.config);
    const inUse = health.fallbacks[call.layer];
    if (inUse && inUse.until <= deps.clock.now()) {
      delete health.fallbacks[call.layer]; // cooled down: the first model is asked again
      input.changed();
    }
    let index = health.fallbacks[call.layer] && health.fallbacks[call.layer]!.index < chain.length ? health.fallbacks[call.layer]!.index : 0;
    for (;;) {
      const config = chain[index]!;
      let spoke = false;
      const request = index === 0 ? call.request : { ...call.request, model: config.model, maxTokens: Math.min(call.request.maxTokens, config.max_tokens) };
      const result = await tracedCall({ ...call, config, request, onText: (text) => ((spoke = true), call.onText?.(text)) });
      const reason = result.error && !result.aborted && index + 1 < chain.length ? failoverReason(result.error, spoke) : null;
      if (!reason) {
        if (!result.error && index === 0 && health.fallbacks[call.layer]) {
          delete health.fallbacks[call.layer];
          input.changed();
        }
        return result;
      }
      index += 1;
      const next = chain[index]!;
      health.fallbacks[call.layer] = { index, backend: next.backend, model: next.model, reason: `${config.backend} · ${config.model}: ${reason}`, until: deps.clock.now() + deps.fallbackCoolDownMs };
      input.changed();
    }
  };

  // Each call a `chat <model>` span with its usage, cost and the allowances that paid (lib/telemetry; nothing with tracing off).
  function tracedCall(call: Parameters<MindContext['callModel']>[0]): Promise<ModelCallResult> {
    return inSpan({ kind: 'chat', backend: call.config.backend, model: call.request.model, sessionId: input.sessionId, layer: call.layer, maxTokens: call.request.maxTokens }, async (span) => {
      let allowances: string[] = [];
      const result = await callOnce(call, (paidBy) => (allowances = paidBy));
      const usage = result.usage;
      span.chat({
        allowances,
        inputTokens: usage?.inputTokens,
        outputTokens: usage?.outputTokens,
        cacheReadTokens: usage?.cacheReadTokens,
        cacheWriteTokens: usage?.cacheWriteTokens,
        finishReason: result.finishReason,
        costUsd: usage && usage.costUsd !== 'unknown' ? usage.costUsd : null,
        ...(result.error && { errorKind: result.error.kind }),
        // Prompts and completions only when the conventions' variable asks for them.
        ...(captureContent() && { input: [...call.request.system.map((segment) => ({ role: 'system', parts: [{ type: 'text', content: segment.text }] })), ...call.request.messages.map((message) => ({ role: message.role, parts: [{ type: 'text', content: message.content }] }))], output: result.text }),
      });
      return result;
    });
  }

  /** `paidBy`: told which daily allowances the call is charged to. */
  async function callOnce({ layer, config, request, signal, onText, traceId }: Parameters<MindContext['callModel']>[0], paidBy: (allowanceIds: string[]) => void): Promise<ModelCallResult> {
    const prompt: PromptRecord = {
      at: new Date(deps.clock.now()).toISOString(),
      backend: config.backend,
      model: request.model,
      maxTokens: request.maxTokens,
      system: request.system.map((segment) => ({ text: segment.text, cache: segment.cache ?? false })),
      // Images and documents by what they are, never their bytes (the viewer gets text).
      user: request.messages
        .map((message) => [message.content, ...(message.blocks ?? []).flatMap((block) => (block.type === 'image' || block.type === 'document' ? [`[${block.type} ${block.label}, ~${block.tokens} tokens]`] : []))].filter(Boolean).join('\n'))
        .join('\n\n'),
      reportedInputTokens: null,
    };
    input.prompts[layer] = prompt;
    // The daily allowances (issue 48): the worst case reserved first; a call none can take is not made.
    // A reply (not a task's step) in a conversation of the owner's alone may pass with the owner's override.
    const now = new Date(deps.clock.now());
    const overridden = layer === 'internal' && !traceId ? () => ownerOverride(input.sessionId, now) : undefined;
    const held = await holdAllowance(input.sessionId, request, now, overridden);
    if (!held.ok) return allowanceSpent(held.message, held.retryAfterMs, deps.clock.now());
    paidBy([...new Set(held.reservation.parts.map((part) => part.allowanceId))]);
    const release = (spent: { usd: number; tokens: number }) => settleAllowance(held.reservation, spent).catch((error: unknown) => logFailure(`[mind ${input.sessionId}] could not settle an allowance`, error));
    const result = await callModel({
      backend: deps.createBackend(config),
      request: { ...request, sessionId: input.sessionId },
      signal,
      clock: deps.clock,
      retryPolicy: deps.retryPolicy,
      random: deps.random,
      onText,
      stallTimeoutMs: deps.stallTimeoutMs,
      // Backend retries are shown while they wait (a 429's retry-after can be long).
      onRetry: (notice) => {
        const message = `${notice.error.message} — retrying in ${Math.round(notice.delayMs / 1000)} s (attempt ${notice.attempt + 1})`;
        const failing = layer === 'internal' ? 'internal' : 'subconscious';
        health.retrying(failing, notice.error.kind, message);
        deps.bus.emit('error', input.sessionId, { layer, message, kind: notice.error.kind, retryInMs: notice.delayMs, consecutiveFailures: health.failures[failing] });
        input.changed();
      },
    }).catch(async (error: unknown) => {
      await release({ usd: 0, tokens: 0 });
      throw error;
    });
    prompt.reportedInputTokens = result.usage?.inputTokens ?? null;
    if (result.usage) {
      const { inputTokens, cacheReadTokens, cacheWriteTokens } = result.usage;
      deps.calibration.observe(request.model, estimateRequestTokens(request), inputTokens + cacheReadTokens + cacheWriteTokens);
    }
    await release(actualCost(result.usage));
    if (held.reservation.parts.length > 0) {
      for (const notice of await noticesDue(input.sessionId, new Date(deps.clock.now())).catch(() => [])) deps.bus.emit('allowance.notice', input.sessionId, notice);
    }
    await yieldToIO();
    await recordLlmCall({ sessionId: input.sessionId, layer, config, result, totals: input.usage[layer], bus: deps.bus, traceId });
    return result;
  }
}

/** A call that was not made: the allowance's reason, as a backend error the layers already show and wait out. */
function allowanceSpent(message: string, retryAfterMs: number, now: number): ModelCallResult {
  return {
    text: '',
    toolCalls: [],
    usage: null,
    finishReason: null,
    error: new BackendError({ kind: 'allowance_spent', message: `Not sent: ${message}.`, retryAfterMs }),
    aborted: false,
    startedAt: new Date(now),
    firstTokenMs: null,
    durationMs: 0,
  };
}
