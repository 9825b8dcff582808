// Keeps the vectors up to date in the background while an embeddings endpoint is configured:
// every few seconds, what has none yet is embedded (newest first, a bounded amount per round).
// A failing endpoint is reported once per distinct reason and retried a minute later; recall
// meanwhile stays lexical for the items not embedded yet.
import { configuredEmbedder } from './embeddings';
import { indexPending } from './vector-index';
import { errorText } from '@/lib/errors/error-text';

export interface VectorIndexerStatus {
  model: string | null;
  indexed: number;
  lastError: string | null;
  lastRunAt: string | null;
}

export class VectorIndexer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private controller = new AbortController();
  private lastReported: string | null = null;
  private readonly current: VectorIndexerStatus = { model: null, indexed: 0, lastError: null, lastRunAt: null };

  constructor(private readonly options: { intervalMs?: number; retryAfterMs?: number; perRound?: number } = {}) {}

  start(): void {
    if (this.timer || this.controller.signal.aborted) return;
    this.schedule(1_000);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  status(): VectorIndexerStatus {
    return { ...this.current };
  }

  /** One round now (the settings changed, or a test). */
  async runOnce(): Promise<number> {
    const embedder = await configuredEmbedder();
    this.current.model = embedder?.model ?? null;
    if (!embedder) return 0;
    try {
      const added = await indexPending(embedder, { limit: this.options.perRound ?? 256, signal: this.controller.signal });
      this.current.indexed += added;
      this.current.lastError = null;
      this.lastReported = null;
      return added;
    } catch (error) {
      const message = errorText(error);
      this.current.lastError = message;
      if (message !== this.lastReported) console.warn(`[memory] embedding failed (recall stays lexical for new items): ${message}`);
      this.lastReported = message;
      throw error;
    } finally {
      this.current.lastRunAt = new Date().toISOString();
    }
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.runOnce().then(
        (added) => this.reschedule(added > 0 ? 0 : (this.options.intervalMs ?? 5_000)),
        () => this.reschedule(this.options.retryAfterMs ?? 60_000),
      );
    }, delayMs);
    this.timer.unref();
  }

  private reschedule(delayMs: number): void {
    this.running = null;
    if (!this.controller.signal.aborted) this.schedule(delayMs);
  }
}
