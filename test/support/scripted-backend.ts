// A ScriptedBackend for orchestrator unit tests (STYLE.md §9): it plays one scripted step per
// call, records every request, and can hold a stream open mid-way until the test releases it.
// It speaks the same StreamPart contract as the real adapters; production never sees it.
import { BackendError, type BackendErrorKind } from '@/lib/backends/backend-error';
import type { BackendRequest, ModelBackend, StreamPart, Usage } from '@/lib/backends/model-backend';
import { estimateRequestTokens } from '@/lib/mind/token-budget';

export interface ScriptStep {
  /** The output, streamed in `chunks` if given, else in pieces of `chunkSize` characters. */
  text?: string;
  chunks?: string[];
  chunkSize?: number;
  usage?: Partial<Usage>;
  /** Ends the stream with this error (after `chunks`, if any). */
  error?: { kind: BackendErrorKind; message: string; retryAfterMs?: number; status?: number };
  /** Holds the stream after this many chunks until `release()` (or an abort). */
  holdAfterChunks?: number;
  /** Tool calls after the text (the finish reason becomes tool-calls). */
  toolCalls?: { id: string; name: string; input: Record<string, unknown> | null; inputError?: string }[];
}

export type Script = ScriptStep | ((request: BackendRequest, call: number) => ScriptStep);

export class ScriptedBackend implements ModelBackend {
  readonly kind = 'openai_compatible' as const;
  readonly calls: BackendRequest[] = [];
  private readonly steps: Script[];
  private releaseHeld: (() => void) | null = null;
  private heldListeners: (() => void)[] = [];

  private callCount = 0;

  /**
   * Steps are used in order; `fallback` (if any) answers every call after them. Benchmarks
   * running thousands of calls pass `keepCalls: false` so the record does not grow.
   */
  constructor(
    steps: Script[] = [],
    private readonly fallback?: Script,
    private readonly options: { keepCalls?: boolean } = {},
  ) {
    this.steps = [...steps];
  }

  push(...steps: Script[]): void {
    this.steps.push(...steps);
  }

  get isHolding(): boolean {
    return this.releaseHeld !== null;
  }

  /** Resolves when a stream is being held (so the test can act mid-stream). */
  whenHolding(): Promise<void> {
    if (this.releaseHeld) return Promise.resolve();
    return new Promise((resolve) => this.heldListeners.push(resolve));
  }

  release(): void {
    const release = this.releaseHeld;
    this.releaseHeld = null;
    release?.();
  }

  /** Every scripted step was used. */
  assertComplete(): void {
    if (this.steps.length > 0) throw new Error(`ScriptedBackend: ${this.steps.length} scripted step(s) were never used`);
  }

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    const call = ++this.callCount;
    if (this.options.keepCalls !== false) this.calls.push(request);
    const script = this.steps.shift() ?? this.fallback;
    if (!script) throw new Error(`ScriptedBackend: no step scripted for call ${call}`);
    const step = typeof script === 'function' ? script(request, call) : script;
    const text = step.text ?? step.chunks?.join('') ?? '';
    const chunks = step.chunks ?? splitText(text, step.chunkSize ?? 7);
    for (let index = 0; index < chunks.length; index++) {
      if (index === step.holdAfterChunks) await this.hold(signal);
      if (signal.aborted) return;
      await Promise.resolve();
      yield { type: 'text-delta', text: chunks[index]! };
    }
    if (step.holdAfterChunks !== undefined && step.holdAfterChunks >= chunks.length) await this.hold(signal);
    if (signal.aborted) return;
    if (step.error) {
      yield { type: 'error', error: new BackendError(step.error) };
      return;
    }
    for (const toolCall of step.toolCalls ?? []) yield { type: 'tool-call', ...toolCall };
    const toolUse = (step.toolCalls?.length ?? 0) > 0;
    yield { type: 'finish', reason: toolUse ? 'tool-calls' : 'stop', rawReason: toolUse ? 'tool_calls' : 'stop' };
    yield {
      type: 'usage',
      usage: {
        // Like a real server: the whole prompt, system included, counted as our estimate does.
        inputTokens: estimateRequestTokens(request),
        outputTokens: Math.ceil(text.length / 4),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        ...step.usage,
      },
    };
  }

  private hold(signal: AbortSignal): Promise<void> {
    // Like a real backend: a call made with an aborted signal ends at once.
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        if (this.releaseHeld === done) this.releaseHeld = null;
        resolve();
      };
      this.releaseHeld = done;
      signal.addEventListener('abort', done, { once: true });
      for (const listener of this.heldListeners.splice(0)) listener();
    });
  }
}

function splitText(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks;
}

/** A well-formed Subconscious answer. */
export function subconsciousReply(parts: { sLoud?: string; sQuiet?: string; mood?: string; criteria?: string; trigger?: boolean } = {}): string {
  return (
    `<S_loud>${parts.sLoud ?? ''}</S_loud><S_quiet>${parts.sQuiet ?? 'quiet'}</S_quiet>` +
    `<M_AND_C><mood>${parts.mood ?? 'calm'}</mood><criteria>${parts.criteria ?? 'be brief'}</criteria></M_AND_C>` +
    `<trigger>${parts.trigger ? 'true' : 'false'}</trigger>`
  );
}
