// Every event the orchestrator emits, as plain JSON in one discriminated union derived from a
// payload map. Each carries its session, a per-session monotonic `seq` and the time it happened.
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import type { CallLayer, UsageTotals } from '@/lib/store/mind-repository';
import type { MessageJson, MoodAndCriteriaJson } from '@/lib/store/messages-repository';
import type { SessionStatus } from '@/lib/store/sessions-repository';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import type { TaskJson } from '@/lib/store/tasks-repository';
import type { ScheduleJson } from '@/lib/store/triggers-repository';
import type { Activity } from './pacing';
import type { ElicitationJson } from './elicitation-json';
import type { SubconsciousOutput } from '@/lib/mind/tags/parse-subconscious-output';

/** What the mind is doing right now; sent whenever it changes and returned by GET /api/sessions/:id. */
/** How the mind rests between cycles (lib/mind/rest.ts): a rest it chose, a deepening pause, or stored until something happens. */
export interface MindRestState {
  kind: 'chosen' | 'quiet' | 'deepening' | 'stored' | 'dormant';
  /** When the rest ends by itself (ISO), or null: when something happens. */
  until: string | null;
  /** What it said when it chose the rest. */
  reason: string | null;
}

export interface MindState {
  running: boolean;
  activity: Activity;
  /** Null while awake. */
  rest: MindRestState | null;
  /** Set after repeated backend failures: the reason, shown until a call succeeds. */
  degraded: string | null;
  cycle: number;
  cycleRunning: boolean;
  nextCycleAt: string | null;
  turn: { turnId: string; spontaneous: boolean; answering: number[] } | null;
  queued: number;
  consecutiveSpontaneous: number;
  /** The latest failure, until that layer next succeeds: a page opened later still sees why. */
  lastError: { layer: 'internal' | 'subconscious'; kind: string; message: string; at: string } | null;
  /** Layers answering on a fallback model while their first one cools down (issue 78 §2): which, why, until when. */
  fallbacks?: { layer: string; backend: string; model: string; reason: string; until: string }[];
}

/** How a trigger was handled: a turn started, the cap held it back, or a turn was already coming. */
/** `quiet`: the session's quiet hours hold it; the mind rests until they end and is asked again then. */
export type SpontaneousOutcome = 'started' | 'capped' | 'busy' | 'quiet' | 'none';

export type TurnOutcome = 'complete' | 'stopped' | 'failed';

/** A task's life over the bus and Socket.IO (ARCHITECTURE §11); each carries the whole task. */
export const TASK_EVENTS = ['task.created', 'task.started', 'task.step', 'task.blocked', 'task.completed', 'task.failed', 'task.cancelled'] as const;
export type TaskEventName = (typeof TASK_EVENTS)[number];

/** A schedule's life (lib/triggers): made, fired, a slot skipped, a fire failed. */
export const SCHEDULE_EVENTS = ['schedule.created', 'schedule.fired', 'schedule.skipped', 'schedule.failed'] as const;
export type ScheduleEventName = (typeof SCHEDULE_EVENTS)[number];

export interface EventPayloads extends Record<TaskEventName, { task: TaskJson }>, Record<ScheduleEventName, { schedule: ScheduleJson; traceId: string; result?: string }> {
  /** A daily allowance passed 80% of its day (issue 48): once a day per allowance, on the session whose call passed it. */
  'allowance.notice': { scope: 'app' | 'persona' | 'person'; scope_id: string; day: string; unit: 'usd' | 'tokens'; spent: number; limit: number; message: string };
  /** A webhook's delivery was accepted and its action started. */
  'hook.received': { hookId: string; deliveryId: string; traceId: string; result: string };
  'session-status': { status: SessionStatus; reason?: string };
  'session-updated': { name: string };
  'session-deleted': Record<string, never>;
  'mind-state': { state: MindState };
  'cycle-start': { cycle: number };
  'subconscious-output': SubconsciousOutput & {
    cycle: number;
    spontaneous: SpontaneousOutcome;
    messages: MessageJson[];
    moodAndCriteria: MoodAndCriteriaJson;
  };
  'mood-changed': { cycle: number; mood: string; criteria: string; previousMood: string | null };
  'turn-start': { turnId: string; spontaneous: boolean; answering: number[]; cycle: number; taskId?: string; traceId?: string };
  'reply-delta': { turnId: string; text: string };
  'thought-delta': { turnId: string; text: string };
  'turn-end': { turnId: string; outcome: TurnOutcome; spontaneous: boolean; messages: MessageJson[]; error?: string; taskId?: string; traceId?: string };
  'message-persisted': { message: MessageJson; queued: boolean };
  error: {
    layer: CallLayer;
    message: string;
    kind: BackendErrorKind | 'internal';
    cycle?: number;
    turnId?: string;
    retryInMs?: number;
    consecutiveFailures: number;
  };
  /** A tool call was proposed or changed status (the card and the Internal panel upsert by id). */
  'tool-call': { call: ToolCallJson };
  /** Live output of a running shell call (the kept part; the row holds it all when it ends). */
  'tool-output': { callId: string; stream: 'stdout' | 'stderr'; text: string };
  /** An MCP server asks the user something mid-call (a card in the chat), or the question ended. */
  elicitation: { elicitation: ElicitationJson };
  /** The Subconscious consolidating memory while the user is away (started, then how it ended). */
  'memory-consolidation': { consolidation: ConsolidationJson };
  usage: { layer: CallLayer; call: Omit<UsageTotals, 'calls' | 'unpricedCalls'> & { priced: boolean; backend: string; model: string }; totals: UsageTotals };
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

/** The exact last prompt a layer sent, for the context viewer. */
export interface PromptRecord {
  at: string;
  backend: string;
  model: string;
  maxTokens: number;
  system: { text: string; cache: boolean }[];
  user: string;
  /** The input tokens the backend reported for this call, when it did. */
  reportedInputTokens: number | null;
}

/** A memory consolidation as the page shows it (lib/memory/consolidation.ts writes them). */
export interface ConsolidationJson {
  id: number;
  session_id: string;
  status: 'running' | 'done' | 'cancelled' | 'failed';
  from_message_id: number;
  through_message_id: number;
  facts_added: number;
  facts_superseded: number;
  facts: { id: number; content: string; replaces: number | null }[];
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}
