// The one contract every model backend implements (ARCHITECTURE §7). Adapters hold no state
// beyond their configuration and import nothing of the app but these types.
import type { BackendError } from './backend-error';
import type { ModelListing } from '@/lib/config/model-catalog';
import { errorText } from '@/lib/errors/error-text';

/** A piece of the system prompt. `cache: true` marks the end of a stable prefix worth caching. */
export interface SystemSegment {
  text: string;
  cache?: boolean;
}

/** A tool the model may call (the registry's definition, as the providers take it). */
export interface BackendTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

/**
 * An image made ready for the provider (resized, re-encoded, no metadata): base64 bytes that stay
 * byte-identical from call to call, so a prompt with images keeps its cached prefix.
 */
export interface ImageBlock {
  type: 'image';
  mediaType: 'image/png' | 'image/jpeg' | 'image/webp';
  data: string;
  /** Input tokens the provider counts for it (its own formula): the context budget counts them. */
  tokens: number;
  /** Where it comes from (a workspace path): said in words to a backend that cannot show it. */
  label: string;
}

/**
 * A PDF: sent as a document where the provider takes one (Anthropic, the CLI), else as `text`,
 * the text extracted from its pages (capped).
 */
export interface DocumentBlock {
  type: 'document';
  mediaType: 'application/pdf';
  data: string;
  text: string;
  tokens: number;
  label: string;
}

/** The parts of a message that are not plain text: a step's tool calls and their results, images, documents. */
export type ContentBlock =
  | { type: 'text'; text: string }
  | ImageBlock
  | DocumentBlock
  | { type: 'tool-call'; id: string; name: string; input: Record<string, unknown> }
  /** `images`: what the tool showed the model (`view_image`), after its text. */
  | { type: 'tool-result'; callId: string; content: string; isError: boolean; images?: ImageBlock[] };

export interface BackendMessage {
  role: 'user' | 'assistant';
  content: string;
  /**
   * When set, the message is these blocks instead of `content` (an assistant step that called
   * tools; the user message that carries their results, all of one step in one message).
   */
  blocks?: ContentBlock[];
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
  /** Tools the model may call, in a fixed order (they are part of the cached prefix). */
  tools?: BackendTool[];
  /**
   * Where a backend that runs its own tool loop (the Claude Code CLI) reaches the app's tools:
   * a loopback MCP endpoint and the token of this call (given to the child in its environment).
   */
  toolServer?: { name: string; url: string; token: string; permissionTool: string };
  /** The session the call is for: a process the CLI backend starts ahead is that session's (closed when it pauses). */
  sessionId?: string;
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
  /**
   * A whole tool call, its arguments assembled from the stream. `input` is null when the model
   * sent arguments that are not a JSON object; `inputError` says why (the model is told so).
   */
  | { type: 'tool-call'; id: string; name: string; input: Record<string, unknown> | null; inputError?: string }
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

/** Arguments as sent ("" for none) → an object, or the reason they are not one. */
export function parseToolInput(raw: string): { input: Record<string, unknown> | null; inputError?: string } {
  if (raw.trim() === '') return { input: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { input: value as Record<string, unknown> };
    return { input: null, inputError: `The arguments must be a JSON object, got: ${raw.slice(0, 200)}` };
  } catch (error) {
    return { input: null, inputError: `The arguments are not valid JSON (${errorText(error)}): ${raw.slice(0, 200)}` };
  }
}
