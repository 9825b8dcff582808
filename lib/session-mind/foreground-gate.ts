// Replies come first. Every session's mind shares one event loop, and a Subconscious cycle's
// parsing, transaction, log appends and events run in blocks that hold back the reply tokens
// streaming beside them (measured: token delay p99 5 → 47 ms with 20 busy sessions). So while
// a reply runs in this process (from the message's arrival to the turn's end), a cycle waits at
// its step boundaries — before its model call and, holding its result, before persisting — for
// up to `maxWaitMs` in all, so a long reply cannot starve it. Nothing is lost: a waiting cycle
// persists its result right after. (Pausing a background call's stream mid-read was tried: an
// abort then left the SDK's read pending and shutdown hung; it gained ~2% of first token.)
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

  /**
   * A piece of background work's allowance (one cycle): each call waits, if a reply runs, until
   * none does; all its waits together last at most `maxWaitMs`, then it stops giving way. Returns
   * undefined when there is nothing to wait for, so a caller on a hot path awaits nothing.
   */
  allowance(signal: AbortSignal): () => Promise<void> | undefined {
    let left = this.maxWaitMs;
    return () => {
      if (this.replies === 0 || left <= 0 || signal.aborted) return undefined;
      const started = this.clock.now();
      return this.wait(left, signal).then(() => {
        left -= this.clock.now() - started;
      });
    };
  }

  private async wait(ms: number, signal: AbortSignal): Promise<void> {
    const done = new AbortController();
    const onAbort = () => done.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const wake = () => done.abort();
    this.waiters.add(wake);
    try {
      await this.clock.sleep(ms, done.signal);
    } finally {
      this.waiters.delete(wake);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
