// The first event on the bus that `pick` maps to a value: how a benchmark waits for a turn's end,
// a card or a call's start without polling.
import type { EventBus, OrchestratorEvent } from '@/lib/mind/events';

export function firstEvent<T>(bus: EventBus, pick: (event: OrchestratorEvent) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const unsubscribe = bus.subscribe((event) => {
      const value = pick(event);
      if (value === undefined) return;
      unsubscribe();
      resolve(value);
    });
  });
}
