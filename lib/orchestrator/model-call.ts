// One model call for a layer: the stream (with the one retry policy for API backends — the
// Claude Code CLI retries by itself, and stacking ours on top would multiply the waits), text
// handed over as it arrives, and what the llm_calls row needs.
import type { BackendError } from '@/lib/backends/backend-error';
import type { BackendRequest, FinishReason, ModelBackend, Usage } from '@/lib/backends/model-backend';
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
  const result: ModelCallResult = {
    text: '',
    usage: null,
    finishReason: null,
    error: null,
    aborted: false,
    startedAt: new Date(started),
    firstTokenMs: null,
    durationMs: 0,
  };
  const parts =
    input.backend.kind === 'claude_code_cli'
      ? input.backend.stream(input.request, input.signal)
      : streamWithRetries(input.backend, input.request, input.signal, {
          policy: input.retryPolicy,
          clock: input.clock,
          random: input.random,
          onRetry: input.onRetry,
        });
  for await (const part of parts) {
    switch (part.type) {
      case 'text-delta':
        result.firstTokenMs ??= input.clock.now() - started;
        result.text += part.text;
        input.onText?.(part.text);
        break;
      case 'reasoning-delta':
        result.firstTokenMs ??= input.clock.now() - started;
        break;
      case 'usage':
        result.usage = part.usage;
        break;
      case 'finish':
        result.finishReason = part.reason;
        break;
      case 'error':
        result.error = part.error;
        break;
    }
  }
  result.aborted = input.signal.aborted && result.error === null;
  result.durationMs = input.clock.now() - started;
  return result;
}
