// The mind's idle-time memory work: while the Subconscious is Resting (the user away), one
// consolidation after a cycle, when consolidation.ts finds new conversation and room under the
// hourly caps. The user's next message cancels it (nothing is written); stopping the mind too.
import type { EventBus } from '@/lib/mind/events';
import type { MindModelAccess } from '@/lib/mind/model-access';
import type { Activity } from '@/lib/mind/pacing';
import { consolidateSession, type ConsolidationOutcome } from './consolidation';
import { logFailure } from '@/lib/store/store-faults';

export class IdleConsolidation {
  private controller: AbortController | null = null;

  constructor(private readonly input: { context: MindModelAccess; bus: EventBus; now: () => number }) {}

  get running(): boolean {
    return this.controller !== null;
  }

  /** One consolidation when resting; resolves when it is over (done, skipped, failed or cancelled). */
  async afterCycle(activity: Activity, stopSignal: AbortSignal): Promise<ConsolidationOutcome | null> {
    if (activity !== 'resting' || stopSignal.aborted) return null;
    const { context, bus } = this.input;
    const controller = new AbortController();
    const abort = () => controller.abort();
    stopSignal.addEventListener('abort', abort, { once: true });
    this.controller = controller;
    try {
      return await consolidateSession({
        context,
        personaName: context.session().personaName,
        signal: controller.signal,
        now: new Date(this.input.now()),
        onChange: (consolidation) => bus.emit('memory-consolidation', context.sessionId, { consolidation }),
      });
    } catch (error) {
      logFailure(`[mind ${context.sessionId}] consolidation failed`, error);
      return null;
    } finally {
      stopSignal.removeEventListener('abort', abort);
      this.controller = null;
    }
  }

  /** The user spoke: a running consolidation stops and writes nothing. */
  cancel(): void {
    this.controller?.abort();
  }
}
