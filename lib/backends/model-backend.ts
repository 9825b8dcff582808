// The one contract every model backend implements (ARCHITECTURE §7). Adapters hold no state
// beyond their configuration and import nothing of the app but these types.
import type { BackendError } from './backend-error';
import type { ModelListing } from './model-catalog';

/** A piece of the system prompt. `cache: true` marks the end of a stable prefix worth caching. */
export interface SystemSegment {
  text: string;
  cache?: boolean;
}

export interface BackendMessage {
  role: 'user' | 'assistant';
  content: string;
  /**
   * Offsets in `content` where a stable prefix ends (ascending): what comes before each one was
   * sent the same way in an earlier call, so a backend with prompt caching can read it from its
   * cache. Backends without explicit caching send the content as it is.
   */
  cacheBoundaries?: number[];
}

export interface BackendRequest {
  system: SystemSegment[];
  messages: BackendMessage[];
  model: string;
  maxTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Estimated cost in US dollars, or 'unknown' for a model without a known price. */
  costUsd: number | 'unknown';
}

export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason; rawReason: string | null }
  /** The backend retries by itself (the Claude Code CLI does) and waits this long first. */
  | { type: 'retry'; attempt: number; delayMs: number; error: BackendError }
  | { type: 'error'; error: BackendError };

export interface ModelBackend {
  readonly kind: 'claude_code_cli' | 'anthropic' | 'openai_compatible';
  /**
   * Streams one model call. Never throws: failures arrive as an `error` part, after which the
   * stream ends. An abort ends the stream quietly (it is not an error to report).
   */
  stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<StreamPart>;
  /** The models the server offers, deprecated ones marked, for the settings forms. */
  listModels?(signal: AbortSignal): Promise<ModelListing[]>;
}

export function systemText(system: SystemSegment[]): string {
  return system.map((segment) => segment.text).join('\n\n');
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
}
