// What traces.ts and the OpenTelemetry side (otel-tracer.ts) share: spans described in our words.

/** What a span is about, in our words. */
export type SpanFacts =
  | { kind: 'agent'; persona: string; sessionId: string; layer: 'internal' | 'subconscious' | 'task'; turnId?: string; taskId?: string; cycle?: number }
  | { kind: 'chat'; backend: string; model: string; sessionId: string; layer: string; maxTokens: number }
  | { kind: 'tool'; name: string; callId: string; sessionId: string; decision?: string; decidedBy?: string }
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

export interface Tracer {
  inSpan<T>(facts: SpanFacts, run: (span: TraceSpan) => Promise<T>): Promise<T>;
  shutdown(): Promise<void>;
}
