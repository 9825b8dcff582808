// The one error type at the model boundary, with machine fields the retry policy and UI read.
export type BackendErrorKind =
  | 'rate_limited'
  | 'overloaded'
  | 'server'
  | 'timeout'
  | 'connection'
  | 'authentication'
  | 'permission'
  | 'not_found'
  /** The server does not serve this model (any more): only a change of model helps. */
  | 'model_not_found'
  | 'invalid_request'
  | 'prompt_too_long'
  | 'protocol'
  | 'cli_missing'
  | 'cli_failed'
  /** The CLI could not reach the app's own tool server (MCP): it would answer without tools. */
  | 'tool_server_unavailable'
  | 'stream_interrupted'
  /** A daily allowance cannot take this call (issue 48): it was not made; `retryAfterMs` is when the day renews. */
  | 'allowance_spent';

export interface BackendErrorDetails {
  kind: BackendErrorKind;
  message: string;
  status?: number;
  retryAfterMs?: number;
  exitCode?: number;
  stderrExcerpt?: string;
  /** True when the provider may have produced output already: retrying would repeat it. */
  afterOutput?: boolean;
}

const retryableKinds = new Set<BackendErrorKind>(['rate_limited', 'overloaded', 'server', 'timeout', 'connection']);

export class BackendError extends Error {
  readonly kind: BackendErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly exitCode?: number;
  readonly stderrExcerpt?: string;
  readonly afterOutput: boolean;

  constructor(details: BackendErrorDetails) {
    super(details.message);
    this.name = 'BackendError';
    this.kind = details.kind;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.exitCode = details.exitCode;
    this.stderrExcerpt = details.stderrExcerpt;
    this.afterOutput = details.afterOutput ?? false;
  }

  get isRetryable(): boolean {
    return retryableKinds.has(this.kind) && !this.afterOutput;
  }

  toJSON() {
    return { kind: this.kind, message: this.message, status: this.status, retryable: this.isRetryable };
  }
}

// Anthropic: 404 "model: claude-x"; OpenAI: "The model `x` does not exist"; Ollama: 'model "x"
// not found, try pulling it first'; and a retired model's "… has been retired / is deprecated".
const unknownModelPattern = /^model: \S+$|\bmodel\b.*\b(not found|does not exist|not exist|retired|no longer available|deprecated|not supported|unknown)\b/i;

/** Maps an HTTP status (and the provider's message) to our kinds. */
export function errorFromStatus(input: { status: number; message: string; retryAfterMs?: number }): BackendError {
  const { status } = input;
  if ((status === 404 || status === 400) && unknownModelPattern.test(input.message)) {
    return new BackendError({ kind: 'model_not_found', status, message: input.message });
  }
  const kind: BackendErrorKind =
    status === 429
      ? 'rate_limited'
      : status === 529
        ? 'overloaded'
        : status === 408
          ? 'timeout'
          : status === 409
            ? 'server'
            : status >= 500
              ? 'server'
              : status === 401
                ? 'authentication'
                : status === 403
                  ? 'permission'
                  : status === 404
                    ? 'not_found'
                    : /prompt is too long|context length|maximum context|too many tokens|context_length_exceeded/i.test(input.message)
                      ? 'prompt_too_long'
                      : 'invalid_request';
  return new BackendError({ kind, status, message: input.message, retryAfterMs: input.retryAfterMs });
}

/** `retry-after` in seconds or as an HTTP date; `retry-after-ms` when the server sends it. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}

/**
 * The socket under a streamed body closed (undici's "terminated", a reset): the connection was lost
 * mid-stream — retryable like any lost connection, unless words were shown already — not a
 * protocol fault. Its cause in words, or null for any other error.
 */
export function connectionLost(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  if (error.message === 'terminated' || (code && ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(code))) return cause?.message ?? code ?? error.message;
  return null;
}
