// The one home of process-wide state. The server loads every lib/ module twice — its own bundle
// and the copies inside Next's route bundles — so a module-level cache, counter or version is two
// of them: a rule revoked by a route (one copy) was never seen by the minds (the other). Only
// globalThis is shared by both, and this file is the only one that keeps anything there; the
// process-state test refuses module-level mutable state anywhere else in lib/.

/** A named piece of the process's state: the same object for every copy of every module. */
export interface Slot<T> {
  value: T;
}

const KEY = Symbol.for('agentcsd.process-state');

type Registry = Map<string, Slot<unknown>>;

function registry(): Registry {
  const holder = globalThis as typeof globalThis & { [KEY]?: Registry };
  return (holder[KEY] ??= new Map());
}

/**
 * The process's slot of this name, made with `initial()` by its first reader. Hold the slot (a
 * module may keep it in a const) and read or replace `slot.value`; keep a value in a module
 * variable only if the slot never replaces it (an object changed in place).
 */
export function processSlot<T>(name: string, initial: () => T): Slot<T> {
  const slots = registry();
  let slot = slots.get(name) as Slot<T> | undefined;
  if (!slot) {
    slot = { value: initial() };
    slots.set(name, slot);
  }
  return slot;
}

/** The names in use, for the test that checks every module asks for a slot of its own. */
export function processSlotNames(): string[] {
  return [...registry().keys()];
}
