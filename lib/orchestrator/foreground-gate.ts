// Replies come first. Every session's mind shares one event loop, and a Subconscious cycle's
// parsing, transaction, log appends and events run in blocks that hold back the reply tokens
// streaming beside them (measured: token delay p99 5 → 47 ms with 20 busy sessions). So while
// any Internal Dialog turn runs in this process, cycles wait at their step boundaries — before
// the model call and before persisting — for up to `maxWaitMs`, so a long reply cannot starve
// them. Nothing is lost: a waiting cycle holds its result and persists it right after.
import type { Clock } from '@/lib/clock/clock';

export class ForegroundGate {
  private replies = 0;
  private waiters = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    readonly maxWaitMs = 10_000,
  ) {}

  /** A reply starts; the returned function ends it (once, whatever happens). */
  enter(): () => void {
    this.replies++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.replies--;
      if (this.replies === 0) for (const wake of [...this.waiters]) wake();
    };
  }

  get busy(): boolean {
    return this.replies > 0;
  }

  /** Background work waits here until no reply runs, `maxWaitMs` passes, or the signal aborts. */
  async clear(signal: AbortSignal): Promise<void> {
    if (this.replies === 0 || signal.aborted) return;
    const done = new AbortController();
    const onAbort = () => done.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const wake = () => done.abort();
    this.waiters.add(wake);
    try {
      await this.clock.sleep(this.maxWaitMs, done.signal);
    } finally {
      this.waiters.delete(wake);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
