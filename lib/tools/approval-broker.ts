// Where a step waits for a person's decision. The decision itself lives in the database (applied
// once, by compare-and-set); the broker only wakes the waiting step, which then reads the row.
// No timeout can run a call: a card waits until it is decided, or the turn is stopped.
export class ApprovalBroker {
  /** Running calls' own stop switches (the Stop button on one call). */
  private readonly running = new Map<string, AbortController>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Waiting steps per session, and who wants to know when one starts waiting. */
  private readonly waitingBySession = new Map<string, number>();
  private readonly waitingListeners = new Map<string, Set<() => void>>();

  /** Resolves at the next `notify(callId)`, or when the signal aborts. */
  wait(callId: string, sessionId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const waiters = this.waiters.get(callId) ?? new Set();
      this.waiters.set(callId, waiters);
      this.waitingBySession.set(sessionId, (this.waitingBySession.get(sessionId) ?? 0) + 1);
      for (const listener of this.waitingListeners.get(sessionId) ?? []) listener();
      const done = () => {
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(callId);
        const left = (this.waitingBySession.get(sessionId) ?? 1) - 1;
        if (left > 0) this.waitingBySession.set(sessionId, left);
        else this.waitingBySession.delete(sessionId);
        signal.removeEventListener('abort', done);
        resolve();
      };
      waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  notify(callId: string): void {
    for (const wake of [...(this.waiters.get(callId) ?? [])]) wake();
  }

  /**
   * Resolves once a step of this session waits for a person (at once if one does). A shutdown
   * does not give such a turn its grace period: there is nothing for it to finish.
   */
  whenWaiting(sessionId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted || (this.waitingBySession.get(sessionId) ?? 0) > 0) return resolve();
      const listeners = this.waitingListeners.get(sessionId) ?? new Set();
      this.waitingListeners.set(sessionId, listeners);
      const done = () => {
        listeners.delete(done);
        if (listeners.size === 0) this.waitingListeners.delete(sessionId);
        signal.removeEventListener('abort', done);
        resolve();
      };
      listeners.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** A controller for one running call, aborted with the turn or by `cancelRunning`. */
  startRunning(callId: string, turnSignal: AbortSignal): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const forward = () => controller.abort();
    if (turnSignal.aborted) controller.abort();
    else turnSignal.addEventListener('abort', forward, { once: true });
    this.running.set(callId, controller);
    return {
      signal: controller.signal,
      done: () => {
        turnSignal.removeEventListener('abort', forward);
        if (this.running.get(callId) === controller) this.running.delete(callId);
      },
    };
  }

  /** Stops one running call (its process group goes); false when it is not running here. */
  cancelRunning(callId: string): boolean {
    const controller = this.running.get(callId);
    if (!controller) return false;
    controller.abort();
    return true;
  }
}
