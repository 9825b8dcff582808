// One model call for a layer: the stream (with the one retry policy for API backends — the
// Claude Code CLI retries by itself, and stacking ours on top would multiply the waits), text
// handed over as it arrives, and what the llm_calls row needs.
import type { BackendError } from '@/lib/backends/backend-error';
import type { BackendRequest, FinishReason, ModelBackend, Usage } from '@/lib/backends/model-backend';
import { collectStream } from '@/lib/backends/collect-stream';
import { streamWithRetries, type RetryNotice, type RetryPolicy } from '@/lib/backends/retry-policy';
import type { Clock } from '@/lib/clock/clock';

export interface ModelCallResult {
  text: string;
  usage: Usage | null;
  finishReason: FinishReason | null;
  error: BackendError | null;
  aborted: boolean;
  startedAt: Date;
  firstTokenMs: number | null;
  durationMs: number;
}

export async function callModel(input: {
  backend: ModelBackend;
  request: BackendRequest;
  signal: AbortSignal;
  clock: Clock;
  retryPolicy: RetryPolicy;
  random: () => number;
  onText?: (text: string) => void;
  onRetry?: (notice: RetryNotice) => void;
}): Promise<ModelCallResult> {
  const started = input.clock.now();
  const parts =
    input.backend.kind === 'claude_code_cli'
      ? input.backend.stream(input.request, input.signal)
      : streamWithRetries(input.backend, input.request, input.signal, {
          policy: input.retryPolicy,
          clock: input.clock,
          random: input.random,
          onRetry: input.onRetry,
        });
  const collected = await collectStream(parts, { now: () => input.clock.now(), onText: input.onText });
  return {
    text: collected.text,
    usage: collected.usage ?? null,
    finishReason: collected.finish?.reason ?? null,
    error: collected.error ?? null,
    aborted: input.signal.aborted && !collected.error,
    startedAt: new Date(started),
    firstTokenMs: collected.firstTokenMs ?? null,
    durationMs: input.clock.now() - started,
  };
}
