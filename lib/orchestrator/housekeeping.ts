// The app's hourly chores, the ones the docs promise (issue 72 §3: nothing ran them): memories
// past their time to live are deleted (a short-term memory's ttl), and expired web sign-ins and
// invites are dropped. Each chore is an idempotent delete, so every process of a cluster may run
// it; one that fails is reported and tried again at the next round.
import type { Clock } from '@/lib/clock/clock';
import { errorText } from '@/lib/errors/error-text';
import { expireMemories } from '@/lib/memory/memory-store';
import { dropExpiredWebSessions } from '@/lib/store/web-auth-repository';

export const HOUSEKEEPING_EVERY_MS = 60 * 60 * 1000;

/** One round of the chores at `now`: what each removed (memories; sign-ins and invites are not counted). */
export async function houseKeep(now: Date): Promise<{ memories: number }> {
  const memories = await expireMemories(now);
  await dropExpiredWebSessions(now);
  return { memories };
}

/** Runs the chores at start and every hour until stopped. */
export class Housekeeping {
  private controller: AbortController | null = null;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly clock: Clock) {}

  start(): void {
    if (this.controller) return;
    const controller = new AbortController();
    this.controller = controller;
    this.loop = (async () => {
      while (!controller.signal.aborted) {
        await houseKeep(new Date(this.clock.now())).catch((error: unknown) => console.error('[housekeeping] a round failed; next in an hour', errorText(error)));
        await this.clock.sleep(HOUSEKEEPING_EVERY_MS, controller.signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    this.controller = null;
    await this.loop;
  }
}
