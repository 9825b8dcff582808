// Traces on OpenTelemetry's GenAI conventions (issue 65, ARCHITECTURE §30), off unless the
// standard variables ask: with no OTLP endpoint set, nothing of OpenTelemetry is loaded and a span
// is one function call that runs its work (`inSpan` below). Set, `startTracing` loads the SDK
// (./otel-tracer.ts, its own chunk) and every span the mind opens goes to the endpoint: a turn of
// the Internal Dialog, a Subconscious cycle or a task's step as `invoke_agent <persona>`, each
// model call as `chat <model>`, each tool call as `execute_tool <name>` — their parents followed
// through the awaits that run them, and across processes and restarts by W3C trace context (a
// message's `traceparent` rides with it to the member that answers it; a task's is its own, so
// every step of it is in one trace wherever it ran). The facts (span-facts.ts) are ours; the names and attributes
// they become are the semantic-conventions package's, chosen in the loaded module.

import { createHash } from 'node:crypto';
import { contentWanted, type SpanFacts, type TaskEndFacts, type TraceSpan, type Tracer } from './span-facts';
import { processSlot } from '@/lib/process/process-state';

export type { ChatOutcome, SpanFacts, TaskEndFacts, TraceSpan, Tracer } from './span-facts';

const NO_SPAN: TraceSpan = { chat: () => undefined, tool: () => undefined };

const tracerSlot = processSlot<Tracer | null | undefined>('telemetry.tracer', () => undefined);

/** The variables that turn tracing on: an OTLP endpoint, for traces or for everything. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED !== 'true';
}

/** Prompts and completions go into spans only when this variable says so (the conventions' own). */
export function captureContent(env: NodeJS.ProcessEnv = process.env): boolean {
  return tracerSlot.value != null && contentWanted(env);
}

/** Starts tracing when the variables ask (once per process); the SDK is loaded only then. */
export async function startTracing(serviceName = 'agentcsd'): Promise<boolean> {
  if (tracerSlot.value || !tracingWanted()) return Boolean(tracerSlot.value);
  const { createTracer } = await import('./otel-tracer');
  tracerSlot.value = createTracer({ serviceName: process.env.OTEL_SERVICE_NAME?.trim() || serviceName });
  return true;
}

/** Sends what is waiting and stops (the process is ending). */
export async function stopTracing(): Promise<void> {
  const tracer = tracerSlot.value;
  tracerSlot.value = null;
  await tracer?.shutdown();
}

/** Runs `run` inside a span of these facts (or just runs it, with tracing off). */
export function inSpan<T>(facts: SpanFacts, run: (span: TraceSpan) => Promise<T>): Promise<T> {
  const tracer = tracerSlot.value;
  return tracer ? tracer.inSpan(facts, run) : run(NO_SPAN);
}

/** Tracing is on in this process. */
export function tracing(): boolean {
  return tracerSlot.value != null;
}

/**
 * The current span as a W3C `traceparent`, for work another process (a cluster member answering
 * a message) or a later moment (a queued message's turn) continues; undefined with tracing off.
 */
export function currentTraceparent(): string | undefined {
  return tracerSlot.value?.currentTraceparent();
}

/**
 * A task's own place in the traces, worked out from the task alone so that every process that
 * runs one of its steps — after a crash, a takeover or an upgrade — continues the same trace: its
 * trace id is the task's trace id (a UUID's 128 bits), its root span's id the first 64 bits of a
 * digest of the task's id. The root itself is recorded when the task ends (`recordTaskEnd`).
 */
export function taskTraceparent(taskId: string, traceId: string): string {
  const digest = (text: string) => createHash('sha256').update(text).digest('hex');
  const uuid = traceId.replace(/-/g, '').toLowerCase();
  return `00-${/^[0-9a-f]{32}$/.test(uuid) ? uuid : digest(traceId).slice(0, 32)}-${digest(taskId).slice(0, 16)}-01`;
}

/** A task ended: its root span (begun when it was made, under the ids `taskTraceparent` gave its steps) is recorded now. */
export function recordTaskEnd(facts: TaskEndFacts): void {
  tracerSlot.value?.record(facts, taskTraceparent(facts.taskId, facts.traceId));
}
