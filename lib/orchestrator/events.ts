// Every event the orchestrator emits, as plain JSON in one discriminated union derived from a
// payload map. Each carries its session, a per-session monotonic `seq` and the time it happened.
import type { SessionStatus } from '@/lib/store/sessions-repository';

export interface EventPayloads {
  'session-status': { status: SessionStatus; reason?: string };
  'session-updated': { name: string };
  'session-deleted': Record<string, never>;
}

export type EventType = keyof EventPayloads;

export type OrchestratorEvent = {
  [K in EventType]: { type: K; sessionId: string; seq: number; at: string; bootId: string } & EventPayloads[K];
}[EventType];

export type EventOf<K extends EventType> = Extract<OrchestratorEvent, { type: K }>;

type Listener = (event: OrchestratorEvent) => void;

/** A synchronous fan-out bus. `bootId` tells clients that seq restarted with the server. */
export class EventBus {
  readonly bootId = crypto.randomUUID();
  private readonly listeners = new Set<Listener>();
  private readonly seqBySession = new Map<string, number>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  lastSeq(sessionId: string): number {
    return this.seqBySession.get(sessionId) ?? 0;
  }

  emit<K extends EventType>(type: K, sessionId: string, payload: EventPayloads[K]): EventOf<K> {
    const seq = this.lastSeq(sessionId) + 1;
    this.seqBySession.set(sessionId, seq);
    const event = { ...payload, type, sessionId, seq, at: new Date().toISOString(), bootId: this.bootId } as unknown as EventOf<K>;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        console.error('[events] listener failed', error);
      }
    }
    return event;
  }
}
