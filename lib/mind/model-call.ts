// One model call for a layer: the stream (with the one retry policy for API backends — the
// Claude Code CLI retries by itself, and stacking ours on top would multiply the waits), text
// handed over as it arrives, and what the llm_calls row needs.
import { BackendError } from '@/lib/backends/backend-error';
import type { BackendRequest, FinishReason, ModelBackend, StreamPart, Usage } from '@/lib/backends/model-backend';
import { collectStream, type CollectedStream } from '@/lib/backends/collect-stream';
import { streamWithRetries, type RetryNotice, type RetryPolicy } from '@/lib/backends/retry-policy';
import type { Clock } from '@/lib/clock/clock';

export interface ModelCallResult {
  text: string;
  /** Whole tool calls the model made, in its order. */
  toolCalls: CollectedStream['toolCalls'];
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
  /** A call that sends nothing for this long (retry waits excluded) is abandoned as a timeout. */
  stallTimeoutMs: number;
}): Promise<ModelCallResult> {
  const { clock } = input;
  const started = clock.now();
  // The SDKs' own timeouts are minutes long (a local model may take that to load); a server that
  // accepts the call and then goes silent would hold the loop that long. The watchdog ends the
  // call through its own signal and reports why. That signal follows the caller's by a listener
  // removed at the end, not AbortSignal.any: in Node 20 a composite signal that gets an abort
  // listener (fetch adds one) and never aborts stays alive for good — the soak benchmark's heap
  // snapshots showed two signals and a controller kept per call.
  const stall = new AbortController();
  const forwardAbort = () => stall.abort();
  if (input.signal.aborted) stall.abort();
  else input.signal.addEventListener('abort', forwardAbort, { once: true });
  const signal = stall.signal;
  let quietSince = started;
  const onRetry = (notice: RetryNotice) => {
    quietSince = clock.now() + notice.delayMs;
    input.onRetry?.(notice);
  };
  const stream =
    input.backend.kind === 'claude_code_cli'
      ? input.backend.stream(input.request, signal)
      : streamWithRetries(input.backend, input.request, signal, { policy: input.retryPolicy, clock, random: input.random, onRetry });
  const finished = new AbortController();
  const watchdog = (async () => {
    while (!finished.signal.aborted) {
      const due = quietSince + input.stallTimeoutMs - clock.now();
      if (due <= 0) {
        stall.abort();
        return;
      }
      await clock.sleep(due, finished.signal);
    }
  })();
  let stalled = false;
  const onPart = (part: StreamPart) => {
    quietSince = clock.now();
    // The CLI's own retry (it waits, then calls again): shown like ours, and not a stall.
    if (part.type === 'retry') onRetry({ attempt: part.attempt, delayMs: part.delayMs, error: part.error });
  };
  const collected = await collectStream(stream, { now: () => clock.now(), onText: input.onText, onPart }).finally(() => {
    input.signal.removeEventListener('abort', forwardAbort);
    stalled = stall.signal.aborted && !input.signal.aborted;
    finished.abort();
  });
  await watchdog;
  const error = stalled
    ? new BackendError({ kind: 'timeout', message: `The model sent nothing for ${input.stallTimeoutMs < 1000 ? `${input.stallTimeoutMs} ms` : `${Math.round(input.stallTimeoutMs / 1000)} s`}: call abandoned` })
    : (collected.error ?? null);
  return {
    text: collected.text,
    toolCalls: collected.toolCalls,
    usage: collected.usage ?? null,
    finishReason: collected.finish?.reason ?? null,
    error,
    aborted: input.signal.aborted && !collected.error,
    startedAt: new Date(started),
    firstTokenMs: collected.firstTokenMs ?? null,
    durationMs: clock.now() - started,
  };
}
