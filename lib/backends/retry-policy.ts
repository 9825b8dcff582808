// The one retry policy (issue: "retries live in one place"): 408/409/429/5xx/529 and connection
// failures retry with capped exponential backoff and jitter, honouring retry-after (capped).
// Permanent errors fail at once. A stream that already produced output is never retried: that
// would repeat text the user has seen.
import { realClock, type Clock } from '@/lib/clock/clock';
import { BackendError } from './backend-error';
import type { BackendRequest, ModelBackend, StreamPart } from './model-backend';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: BackendError;
}

/** Delay before retry number `attempt` (1-based): retry-after wins, else full-jitter backoff. */
export function retryDelayMs(attempt: number, error: BackendError, policy: RetryPolicy, random: () => number = Math.random): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half random: never zero, never in lock-step with other clients.
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export async function* streamWithRetries(
  backend: ModelBackend,
  request: BackendRequest,
  signal: AbortSignal,
  options: { policy?: RetryPolicy; clock?: Clock; random?: () => number; onRetry?: (notice: RetryNotice) => void } = {},
): AsyncIterable<StreamPart> {
  const policy = options.policy ?? defaultRetryPolicy;
  const clock = options.clock ?? realClock;
  for (let attempt = 1; ; attempt++) {
    let produced = false;
    let retryError: BackendError | undefined;
    for await (const part of backend.stream(request, signal)) {
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') produced = true;
      if (part.type === 'error') {
        if (!produced && part.error.isRetryable && attempt < policy.maxAttempts && !signal.aborted) {
          retryError = part.error;
          break;
        }
        yield produced && !part.error.afterOutput ? { type: 'error', error: markAfterOutput(part.error) } : part;
        return;
      }
      yield part;
    }
    if (!retryError) return;
    const delayMs = retryDelayMs(attempt, retryError, policy, options.random);
    options.onRetry?.({ attempt, delayMs, error: retryError });
    await clock.sleep(delayMs, signal);
    if (signal.aborted) return;
  }
}

function markAfterOutput(error: BackendError): BackendError {
  return new BackendError({
    kind: error.kind,
    message: error.message,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
    exitCode: error.exitCode,
    stderrExcerpt: error.stderrExcerpt,
    afterOutput: true,
  });
}
