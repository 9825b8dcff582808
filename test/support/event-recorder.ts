// Records a bus's events and lets a test wait for the one it needs (with a real-time timeout).
import type { EventBus, EventOf, EventType, OrchestratorEvent } from '@/lib/mind/events';

interface Waiter {
  matches: (event: OrchestratorEvent) => boolean;
  resolve: (event: OrchestratorEvent) => void;
}

export class EventRecorder {
  readonly events: OrchestratorEvent[] = [];
  private waiters: Waiter[] = [];
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus) {
    this.unsubscribe = bus.subscribe((event) => {
      this.events.push(event);
      for (const waiter of this.waiters.filter((candidate) => candidate.matches(event))) {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        waiter.resolve(event);
      }
    });
  }

  of<K extends EventType>(type: K, sessionId?: string): EventOf<K>[] {
    return this.events.filter((event): event is EventOf<K> => event.type === type && (!sessionId || event.sessionId === sessionId));
  }

  /** The `count`-th event of this type matching `predicate` (counting those already seen). */
  waitFor<K extends EventType>(type: K, options: { count?: number; where?: (event: EventOf<K>) => boolean; timeoutMs?: number } = {}): Promise<EventOf<K>> {
    const count = options.count ?? 1;
    const where = options.where ?? (() => true);
    const matching = () => this.of(type).filter(where);
    const seen = matching();
    if (seen.length >= count) return Promise.resolve(seen[count - 1]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        reject(new Error(`Timed out waiting for ${type} #${count}; saw: ${this.events.map((event) => event.type).join(', ')}`));
      }, options.timeoutMs ?? 5_000);
      const waiter: Waiter = {
        matches: (event) => event.type === type && where(event as EventOf<K>) && matching().length >= count,
        resolve: () => {
          clearTimeout(timer);
          resolve(matching()[count - 1]!);
        },
      };
      this.waiters.push(waiter);
    });
  }

  close(): void {
    this.unsubscribe();
  }
}
