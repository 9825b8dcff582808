// What the task loop (task-workflow.ts) and its parts (task-run.ts, task-step.ts) share: what it
// needs from the session's mind and the app, and what one step journals.
import type { TurnResult } from '@/lib/mind/outcomes';
import type { TaskUsage } from '@/lib/store/task-types';
import type { TaskRecord } from '@/lib/store/tasks-repository';
import type { AgentStepRecord, AgentTurnRecord } from '@/lib/store/tool-calls-repository';
import type { DelegationHost } from './delegate-tool';
import type { RepeatVerdict } from './task-policy';
import type { StepRequests, TaskTurn } from './task-turn';

/** What the loop needs from the session's mind. */
export interface TaskMind {
  runTaskStep(task: TaskTurn, resume?: { turn: AgentTurnRecord; steps: AgentStepRecord[] }): Promise<TurnResult>;
  setTaskActive(active: boolean): void;
  noteForSubconscious(line: string): void;
  /** Resolves once the mind has loaded (it is registered a moment before); rejects if it stops first. */
  whenStarted(): Promise<void>;
}

export interface TaskWorkflowDeps {
  /** The session's mind in this process; resolves when it starts (a recovered run waits for it), rejects on `signal`. */
  mind(sessionId: string, signal: AbortSignal): Promise<TaskMind>;
  /** Every change of the task, for the bus (`task.created` … `task.cancelled`). */
  announce(event: 'started' | 'step' | 'blocked' | 'completed' | 'failed' | 'cancelled', task: TaskRecord): void;
  /** The app is shutting down: leave the task as it is for the restart. */
  stopping(): boolean;
  /**
   * The run is at rest — waiting for a person, for the allowance, or left for the restart — or busy
   * again: a shutdown lets the busy ones reach rest (their step journaled and counted) before the
   * engine lets go of its journal.
   */
  atRest?(taskId: string, resting: boolean): void;
  /** The pause between steps (seed 003's *Working* pacing). */
  workingDelayMs: number;
  /** How often a task paused by a daily allowance looks whether it may go on (default a minute). */
  allowanceLookMs?: number;
  /** Specialists (issue 34): how a task hands work to another persona; absent, no `delegate`. */
  delegation?: DelegationHost;
}

/** What one step journals: everything the loop decides on afterwards, as JSON. */
export interface StepOutcome {
  outcome: TurnResult['outcome'];
  error: string | null;
  /** The kind of the error, when the step failed at the model (an allowance that could not take the call: a pause). */
  errorKind?: string | null;
  budgetStop: string | null;
  requests: StepRequests;
  repeat: RepeatVerdict;
  repeatedCall: string | null;
  usage: TaskUsage;
}
