// A simulated clock for the mind's loops: time moves only when a test advances it, so hours of
// pacing run in milliseconds. Each due sleeper is woken in order, with the event loop given a
// chance to run (real DB writes included) before time moves on.
import type { Clock } from '@/lib/clock/clock';

interface Sleeper {
  at: number;
  resolve: () => void;
}

export class FakeClock implements Clock {
  private time: number;
  private sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 10, 22, 12)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        at: this.time + ms,
        resolve: () => {
          this.sleepers = this.sleepers.filter((other) => other !== sleeper);
          signal?.removeEventListener('abort', sleeper.resolve);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', sleeper.resolve, { once: true });
    });
  }

  /** The earliest wake-up time among sleepers, or null when nobody sleeps. */
  nextWakeAt(): number | null {
    return this.sleepers.length ? Math.min(...this.sleepers.map((sleeper) => sleeper.at)) : null;
  }

  /** Moves time forward by `ms`, waking every sleeper that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    for (;;) {
      await settle();
      const next = this.nextWakeAt();
      if (next === null || next > target) break;
      this.time = Math.max(this.time, next);
      const due = this.sleepers.filter((candidate) => candidate.at <= this.time);
      const waiting = this.sleepers.length;
      for (const sleeper of due) sleeper.resolve();
      // Let the woken work run (real DB writes included) until it sleeps again, so the next
      // wake-up is scheduled from the right time. Work that never sleeps again (a held stream)
      // is given up on after a while.
      for (let round = 0; round < 200 && this.sleepers.length < waiting; round++) await settle(1);
    }
    this.time = target;
    await settle();
  }
}

/** Lets pending promise jobs and I/O callbacks run (a few turns of the event loop). */
export async function settle(turns = 5): Promise<void> {
  for (let index = 0; index < turns; index++) await new Promise((resolve) => setImmediate(resolve));
}
