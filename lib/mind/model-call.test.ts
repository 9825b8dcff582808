import { describe, expect, it } from 'vitest';
import { BackendError } from '@/lib/backends/backend-error';
import type { BackendRequest, ModelBackend, StreamPart } from '@/lib/backends/model-backend';
import { realClock } from '@/lib/clock/clock';
import { callModel } from '@/lib/mind/model-call';

const request: BackendRequest = { system: [{ text: 'system' }], messages: [{ role: 'user', content: 'hi' }], model: 'm', maxTokens: 10 };
const policy = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10, maxRetryAfterMs: 1_000 };

/** A backend that plays `script` per attempt: parts, then (if `hang`) silence until aborted. */
function backend(attempts: { parts: StreamPart[]; hang?: boolean }[]): ModelBackend & { calls: number } {
  return {
    kind: 'openai_compatible',
    calls: 0,
    async *stream(_request, signal) {
      const attempt = attempts[this.calls++]!;
      for (const part of attempt.parts) yield part;
      if (attempt.hang) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
}

const call = (model: ModelBackend, signal = new AbortController().signal, stallTimeoutMs = 100) =>
  callModel({ backend: model, request, signal, clock: realClock, retryPolicy: policy, random: () => 0.5, stallTimeoutMs });

describe('callModel: the stall watchdog', () => {
  it('abandons a call that goes silent, before or after its first token, as a timeout', async () => {
    for (const parts of [[], [{ type: 'text-delta', text: 'partial' } as StreamPart]]) {
      const result = await call(backend([{ parts, hang: true }]));
      expect(result.error).toMatchObject({ kind: 'timeout', message: 'The model sent nothing for 100 ms: call abandoned' });
      expect(result.aborted).toBe(false);
      expect(result.text).toBe(parts.length ? 'partial' : '');
    }
  });

  it('does not count a retry wait as silence', async () => {
    const retryAfter = new BackendError({ kind: 'rate_limited', message: '429', retryAfterMs: 250 });
    const model = backend([{ parts: [{ type: 'error', error: retryAfter }] }, { parts: [{ type: 'text-delta', text: 'ok' }, { type: 'finish', reason: 'stop', rawReason: 'stop' }] }]);
    const result = await call(model);
    expect(model.calls).toBe(2);
    expect(result).toMatchObject({ text: 'ok', error: null, finishReason: 'stop' });
  });

  it('leaves a user abort an abort, not a timeout', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = await call(backend([{ parts: [], hang: true }]), controller.signal, 10_000);
    expect(result).toMatchObject({ aborted: true, error: null });
  });
});

