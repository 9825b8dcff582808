// What traces.ts and the OpenTelemetry side (otel-tracer.ts) share: spans described in our words.

/** What a span is about, in our words. */
export type SpanFacts =
  /** `parent`: a W3C traceparent the span continues (a message's from another process, a task's own) instead of the current span. */
  | { kind: 'agent'; persona: string; sessionId: string; layer: 'internal' | 'subconscious' | 'task' | 'consolidation'; turnId?: string; taskId?: string; cycle?: number; parent?: string }
  /** A person's message reaching a session (from the page, a channel, a door or a trigger). */
  | { kind: 'message'; sessionId: string }
  /** A request through one of the doors (the OpenAI API, MCP, ACP) delivering a message. */
  | { kind: 'door'; door: 'openai' | 'mcp' | 'acp'; persona: string }
  /** A channel's message in (`receive`) or an outbox row sent out (`send`). */
  | { kind: 'channel'; operation: 'receive' | 'send'; channel: string; channelId: string; outboxId?: number }
  | { kind: 'chat'; backend: string; model: string; sessionId: string; layer: string; maxTokens: number }
  | { kind: 'tool'; name: string; callId: string; sessionId: string; decision?: string; decidedBy?: string }
  /** A recording heard, or words said, on the speech server (issue 76): `transcribe <model>` or `speak <model>`, the bytes sent and the server. */
  | { kind: 'speech'; operation: 'transcribe' | 'speak'; model: string; server: string; bytes: number }
  /** A card waiting for a person's decision: its own span, beside the run it may lead to. */
  | { kind: 'approval'; name: string; callId: string; sessionId: string };

/** What a model call ended with. */
export interface ChatOutcome {
  responseModel?: string;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  finishReason?: string | null;
  costUsd?: number | null;
  /** The daily allowances that paid for it (ids), when any applied. */
  allowances?: string[];
  errorKind?: string;
  /** Only when content capture is on (the caller checks `captureContent()`). */
  input?: unknown;
  output?: string;
}

export interface TraceSpan {
  /** The call's outcome (a chat span). */
  chat(outcome: ChatOutcome): void;
  /** A tool call's outcome. */
  tool(outcome: { status: string; decision?: string | null; decidedBy?: string | null; waitedMs?: number; isError?: boolean }): void;
}

/** A task's root span, recorded when the task ends. */
export interface TaskEndFacts {
  taskId: string;
  traceId: string;
  sessionId: string;
  persona: string;
  status: string;
  steps: number;
  costUsd: number;
  startedAt: Date;
  endedAt: Date;
  error?: string | null;
  parentTaskId?: string | null;
}

export interface Tracer {
  inSpan<T>(facts: SpanFacts, run: (span: TraceSpan) => Promise<T>): Promise<T>;
  currentTraceparent(): string | undefined;
  /** A span of the past, under the ids `traceparent` names (a task's root). */
  record(facts: TaskEndFacts, traceparent: string): void;
  shutdown(): Promise<void>;
}

/** The conventions' own variable: prompts, completions and exception messages go into spans only when it says true. */
export function contentWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
}
