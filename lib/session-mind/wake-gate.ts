// How the Subconscious loop sleeps: on the clock, until the time runs out or something wakes it
// (a message, a turn ending, new settings, pause or stop). Wakes never pile up: one wake ends the
// current sleep, and a sleep begun after it waits afresh.
import type { Clock } from '@/lib/clock/clock';

export class WakeGate {
  private controller = new AbortController();

  constructor(private readonly clock: Clock) {}

  /** True when woken early, false when the time ran out. `Infinity` waits for a wake only. */
  async sleep(ms: number): Promise<boolean> {
    if (this.controller.signal.aborted) this.controller = new AbortController();
    const signal = this.controller.signal;
    if (ms === Number.POSITIVE_INFINITY) {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return true;
    }
    await this.clock.sleep(ms, signal);
    return signal.aborted;
  }

  wake(): void {
    this.controller.abort();
  }

  /**
   * Wakes once the current task is done: a reply's model call goes out first and the cycle's
   * prompt assembly no longer holds it back (the cycle could not change that reply anyway: the
   * turn took the Mood & Criteria when it started).
   */
  wakeSoon(): void {
    setImmediate(() => this.wake());
  }
}
