// Tasks for the whole app (one per orchestrator): submit, resume, cancel; one task at a time per
// session, the others wait `pending` in order; each runs as a workflow on the execution engine.
// At start-up (and when a session resumes) a running task continues from its last finished step
// and a blocked one waits again for its answer.
import { randomUUID } from 'node:crypto';
import type { CarriedRun, ExecutionEngine } from '@/lib/engine/execution-engine';
import { RunCancelledError } from '@/lib/engine/execution-engine';
import type { EventBus } from '@/lib/mind/events';
import { closeAgentTurn, listToolCalls, loadOpenTaskTurn, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { listLlmCallsByTrace } from '@/lib/store/mind-repository';
import { addTaskNote, childTasks, findTask, insertTask, listTasks, taskJson, updateTask, type TaskRecord } from '@/lib/store/tasks-repository';
import { runTaskWorkflow, type TaskMind } from './task-workflow';
import type { DelegationHost } from './delegate-tool';
import type { Workflow } from '@/lib/engine/execution-engine';
import { FINAL_TASK_STATUSES, type SubmitTaskInput } from '@/lib/store/task-types';
import { recordTaskEnd, tracing } from '@/lib/telemetry/traces';
import { findSession } from '@/lib/store/sessions-repository';
import { errorText } from '@/lib/errors/error-text';
import { logFailure, STORE_FAULT_WORDS, storeFault, storeFaultPauseMs } from '@/lib/store/store-faults';

export class TaskError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'TaskError';
  }
}

export interface TaskServiceDeps {
  bus: EventBus;
  engine: ExecutionEngine;
  /** The session's mind when it runs in this process. */
  mind(sessionId: string): TaskMind | null;
  /** Seed 003's *Working* pause between steps (~3 s; 0 in tests). */
  workingDelayMs: number;
  /** How often a task paused by a daily allowance looks whether it may go on (a minute; less in tests). */
  allowanceLookMs?: number;
  /**
   * Several processes: runs the request in the process whose mind holds the session and answers
   * true, or false when that is this one (the mind is started here if nobody holds it).
   */
  elsewhere?(request: TaskElsewhere): Promise<boolean>;
  /** Specialists (issue 34): the app's side of `delegate`. */
  delegation?: DelegationHost;
}

export type TaskElsewhere =
  | { kind: 'session-changed'; sessionId: string }
  | { kind: 'task-resume'; sessionId: string; taskId: string; input: string }
  | { kind: 'task-cancel'; sessionId: string; taskId: string };

/** A task's trace: what it caused, and the traces of the tasks it delegated. */
export interface TaskTrace {
  task: TaskRecord;
  calls: ToolCallRecord[];
  llmCalls: { layer: string; backend: string; model: string; started_at: string; duration_ms: number; input_tokens: number; output_tokens: number; cost_usd: number | null; finish_reason: string | null; error: string | null }[];
  children: TaskTrace[];
}

/** How long a shutdown waits for the runs' steps to be journaled and counted (the minds' turns have settled by then). */
const shutdownSettleMs = 2_000;

export class TaskService {
  private stopping = false;
  private readonly running = new Map<string, Promise<void>>();
  /** Runs at rest (TaskWorkflowDeps.atRest): nothing of theirs in flight for a shutdown to cut. */
  private readonly resting = new Set<string>();
  /** A session whose task's run could not even be ended (the store down, the disk full): its next try waits, longer each time. */
  private readonly backoff = new Map<string, { failures: number; loggedAt: number }>();
  /** Runs waiting for their session's mind to start in this process (a durable run recovered at launch). */
  private readonly mindWaiters = new Map<string, Set<() => void>>();
  /** The task loop under its durable name: its input is the task id (JSON), its dependencies this service's. */
  private readonly workflow: Workflow<string, void>;

  constructor(private readonly deps: TaskServiceDeps) {
    this.workflow = deps.engine.define('task.run', (context, taskId: string) => runTaskWorkflow(context, this.workflowDeps(), taskId));
    deps.engine.onCarried?.((runs) => void this.carried(runs));
  }

  /** A task's run moved onto a new version says so in its trace; one that cannot continue there ends with the reason (issue 60). */
  private async carried(runs: readonly CarriedRun[]): Promise<void> {
    for (const run of runs) {
      if (run.gone) await this.endUnfinished(run.runId, `could not continue after an upgrade: ${run.gone}`);
      else await addTaskNote(run.runId, `continued after an upgrade from version ${run.from} to ${run.to}, at its last finished step`).catch(() => undefined);
    }
  }

  /** A new task; `ids` fixes its id and trace (a schedule's slot: submitting it again returns the same task). */
  async submit(sessionId: string, input: SubmitTaskInput, ids?: { id: string; traceId: string }, parentTaskId: string | null = null): Promise<TaskRecord> {
    if (ids) {
      const existing = await findTask(ids.id);
      if (existing) return existing;
    }
    const task = await insertTask({ id: ids?.id ?? randomUUID(), sessionId, goal: input.goal, context: input.context ?? null, constraints: input.constraints, traceId: ids?.traceId ?? randomUUID(), parentTaskId });
    this.announce('created', task);
    await this.schedule(sessionId);
    return (await findTask(task.id)) ?? task;
  }

  /** Starts the session's task under way (after a restart) or its oldest pending one, if none runs. */
  async schedule(sessionId: string): Promise<void> {
    if (this.stopping) return;
    // Not here: the holder schedules it, or the mind starts here now (and its start schedules it).
    if (!this.deps.mind(sessionId)) return void (await this.deps.elsewhere?.({ kind: 'session-changed', sessionId }));
    for (const wake of this.mindWaiters.get(sessionId) ?? []) wake();
    const open = await listTasks({ sessionId, statuses: ['pending', 'running', 'blocked'] });
    const next = open.find((task) => task.status !== 'pending') ?? open[0];
    if (!next || this.running.has(next.id)) return;
    if (open.some((task) => this.running.has(task.id))) return;
    // A durable run of this id left by a crash is the same run: start returns it (it replays from its journal).
    let stuck = false;
    const run = this.deps.engine
      .start(next.id, this.workflow, next.id)
      .catch(async (error: unknown) => {
        if (this.stopping || error instanceof RunCancelledError) return;
        const fault = storeFault(error);
        if (fault) {
          // The store's condition (issue 73 §4: 610 retries a second, three million log lines): the task stays, the next try waits.
          stuck = true;
          this.noteStuck(sessionId, `[tasks] task ${next.id} waits: ${STORE_FAULT_WORDS[fault]}`);
          return;
        }
        logFailure(`[tasks] task ${next.id} failed to run`, error);
        stuck = !(await this.endUnfinished(next.id, `the task's run failed: ${errorText(error)}`));
      })
      .then(async () => {
        // A run that ended with its task still open would be started again and again: end the task.
        if (!this.stopping && !stuck) stuck = !(await this.endUnfinished(next.id, "the task's run ended before the task did"));
      })
      .finally(() => {
        this.running.delete(next.id);
        this.resting.delete(next.id);
        if (!stuck) this.backoff.delete(sessionId);
        // A run the store's condition ended is dropped, so the next try is a run of its own from the task's saved state.
        else void this.deps.engine.forget(next.id).catch(() => undefined);
        const wait = stuck ? storeFaultPauseMs(this.backoff.get(sessionId)?.failures ?? 1) : 0;
        if (wait === 0) return void this.schedule(sessionId);
        setTimeout(() => void this.schedule(sessionId), wait).unref();
      });
    this.running.set(next.id, run);
  }

  /** Ends a task its run left open; false when even that could not be written (the store is down or full). */
  private async endUnfinished(taskId: string, reason: string): Promise<boolean> {
    try {
      const failed = await updateTask(taskId, { status: 'failed', error: reason, blockedOn: null, finishedAt: new Date() }, ['pending', 'running', 'blocked']);
      if (failed) this.announce('failed', failed);
      return true;
    } catch (error) {
      if (storeFault(error)) return false;
      logFailure(`[tasks] task ${taskId} could not be ended`, error);
      return true;
    }
  }

  /** One more try of a session's task failed for the store's condition: counted, and logged at most once a minute. */
  private noteStuck(sessionId: string, line: string): void {
    const now = Date.now();
    const entry = this.backoff.get(sessionId) ?? { failures: 0, loggedAt: 0 };
    entry.failures += 1;
    if (now - entry.loggedAt >= 60_000) {
      console.error(`${line} (try ${entry.failures}; the next in ${storeFaultPauseMs(entry.failures) / 1000} s)`);
      entry.loggedAt = now;
    }
    this.backoff.set(sessionId, entry);
  }

  /**
   * The session's mind here once it has started, now or later; rejects when `signal` aborts or
   * the mind stops first. A durable run recovered at a takeover can ask while the mind is loading.
   */
  private async awaitMind(sessionId: string, signal: AbortSignal): Promise<TaskMind> {
    const mind = await this.findMind(sessionId, signal);
    let abort = () => {};
    const aborted = new Promise<never>((_, reject) => (abort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))));
    aborted.catch(() => undefined);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    try {
      await Promise.race([mind.whenStarted(), aborted]);
    } finally {
      signal.removeEventListener('abort', abort);
    }
    return mind;
  }

  private findMind(sessionId: string, signal: AbortSignal): Promise<TaskMind> {
    const present = this.deps.mind(sessionId);
    if (present) return Promise.resolve(present);
    return new Promise<TaskMind>((resolve, reject) => {
      const waiters = this.mindWaiters.get(sessionId) ?? new Set<() => void>();
      this.mindWaiters.set(sessionId, waiters);
      const done = () => {
        waiters.delete(check);
        if (waiters.size === 0) this.mindWaiters.delete(sessionId);
        signal.removeEventListener('abort', abort);
      };
      const check = () => {
        const mind = this.deps.mind(sessionId);
        if (!mind) return;
        done();
        resolve(mind);
      };
      const abort = () => {
        done();
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      };
      if (signal.aborted) return abort();
      waiters.add(check);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  private workflowDeps() {
    return {
      mind: (sessionId: string, signal: AbortSignal) => this.awaitMind(sessionId, signal),
      announce: (event: Parameters<TaskService['announce']>[0], task: TaskRecord) => this.announce(event, task),
      stopping: () => this.stopping,
      atRest: (taskId: string, resting: boolean) => void (resting ? this.resting.add(taskId) : this.resting.delete(taskId)),
      workingDelayMs: this.deps.workingDelayMs,
      ...(this.deps.allowanceLookMs !== undefined && { allowanceLookMs: this.deps.allowanceLookMs }),
      ...(this.deps.delegation && { delegation: this.deps.delegation }),
    };
  }

  private announce(event: 'created' | 'started' | 'step' | 'blocked' | 'completed' | 'failed' | 'cancelled', task: TaskRecord): void {
    this.deps.bus.emit(`task.${event}`, task.sessionId, { task: taskJson(task) });
    if (tracing() && (event === 'completed' || event === 'failed' || event === 'cancelled')) void traceTaskEnd(task);
  }

  /** The answer to a task's question, or the go-ahead after a pause. */
  async resume(taskId: string, input: string): Promise<TaskRecord> {
    const task = await this.require(taskId);
    if (!this.deps.mind(task.sessionId) && (await this.deps.elsewhere?.({ kind: 'task-resume', sessionId: task.sessionId, taskId, input }))) return this.require(taskId);
    if (task.blockedOn?.kind === 'allowance') throw new TaskError('conflict', `The task waits for the daily allowance (${task.blockedOn.reason}): it goes on by itself within a minute of the allowance renewing or being raised`);
    if (task.status !== 'blocked' || !task.blockedOn || task.blockedOn.kind === 'approval') {
      throw new TaskError('conflict', task.blockedOn?.kind === 'approval' ? 'The task waits for a decision on a tool call: approve or deny its card' : `The task is ${task.status}, not waiting for an answer`);
    }
    // A specialist's question shown on its parent: the answer is the specialist's (issue 34).
    if (task.blockedOn.kind === 'question' && task.blockedOn.child_task_id) {
      await this.resume(task.blockedOn.child_task_id, input);
      return (await this.waitForChange(taskId, task.updatedAt)) ?? (await this.require(taskId));
    }
    if (!(await this.deps.engine.signal(taskId, 'resume', input))) {
      await this.schedule(task.sessionId);
      if (!(await this.deps.engine.signal(taskId, 'resume', input))) throw new TaskError('conflict', 'The session is paused: resume the session, then the task');
    }
    return (await this.waitForChange(taskId, task.updatedAt)) ?? task;
  }

  /** Cancels: a pending task at once; a running one stops its model call and tools, then ends `cancelled`. */
  async cancel(taskId: string): Promise<TaskRecord> {
    const task = await this.require(taskId);
    if (!this.deps.mind(task.sessionId) && (await this.deps.elsewhere?.({ kind: 'task-cancel', sessionId: task.sessionId, taskId }))) return this.require(taskId);
    if (task.status === 'pending') {
      const cancelled = await updateTask(taskId, { status: 'cancelled', error: 'cancelled by the user', finishedAt: new Date() }, ['pending']);
      if (cancelled) {
        this.announce('cancelled', cancelled);
        return cancelled;
      }
    }
    const current = (await findTask(taskId))!;
    if (['completed', 'failed', 'cancelled'].includes(current.status)) throw new TaskError('conflict', `The task is already ${current.status}`);
    if (await this.deps.engine.cancel(taskId)) {
      await this.running.get(taskId);
    } else {
      // Not running in this process (its session is paused): end it here, and its waiting cards.
      const open = await loadOpenTaskTurn({ sessionId: current.sessionId, taskId });
      if (open) await closeAgentTurn({ sessionId: current.sessionId, turnId: open.turn.turnId });
      const cancelled = await updateTask(taskId, { status: 'cancelled', error: 'cancelled by the user', blockedOn: null, finishedAt: new Date() }, ['running', 'blocked']);
      if (cancelled) this.announce('cancelled', cancelled);
    }
    // The tasks it delegated go with it (issue 34), whether or not its step was waiting on them.
    for (const child of await childTasks(taskId)) {
      if (!FINAL_TASK_STATUSES.includes(child.status)) await this.cancel(child.id).catch((error: unknown) => logFailure(`[tasks] the delegated task ${child.id} could not be cancelled`, error));
    }
    return (await findTask(taskId))!;
  }

  /** Everything the task caused, for its trace export; the tasks it delegated nested in `children` (each under its own trace id). */
  async trace(taskId: string): Promise<TaskTrace> {
    return this.traceOf(await this.require(taskId), 0);
  }

  private async traceOf(task: TaskRecord, depth: number): Promise<TaskTrace> {
    const children = depth < 5 ? await Promise.all((await childTasks(task.id)).map((child) => this.traceOf(child, depth + 1))) : [];
    const calls = (await listToolCalls({ sessionId: task.sessionId, limit: 10_000 })).filter((call) => call.taskId === task.id);
    const llmCalls = (await listLlmCallsByTrace(task.traceId)).map((row) => ({
      layer: row.layer,
      backend: row.backend,
      model: row.model,
      started_at: row.startedAt.toISOString(),
      duration_ms: row.durationMs,
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      cost_usd: row.costUsd,
      finish_reason: row.finishReason,
      error: row.error,
    }));
    return { task, calls, llmCalls, children };
  }

  async require(taskId: string): Promise<TaskRecord> {
    const task = await findTask(taskId);
    if (!task) throw new TaskError('not_found', `Task ${taskId} does not exist`);
    return task;
  }

  /** A shutdown leaves tasks as they are (running, blocked) for the restart. */
  beginShutdown(): void {
    this.stopping = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // A step whose turn finished in the minds' grace is journaled and counted before the engine
    // stops: the durable engine lets go of its journal first, and a step left out of it would run
    // again after the start — its calls and its words twice (issue 73).
    await this.untilRunsRest(shutdownSettleMs);
    // The engine stops its runs without ending them (with `stopping` set they change nothing): an
    // in-memory run continues from the store at the next start, a durable one is recovered.
    await this.deps.engine.shutdown();
    this.running.clear();
    this.resting.clear();
  }

  private async untilRunsRest(limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    while ([...this.running.keys()].some((id) => !this.resting.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  private async waitForChange(taskId: string, since: Date): Promise<TaskRecord | null> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const task = await findTask(taskId);
      if (task && task.updatedAt.getTime() !== since.getTime()) return task;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return findTask(taskId);
  }
}

/** The task's root span, now that it ended: from its making to its end, every step's parent wherever the step ran. */
async function traceTaskEnd(task: TaskRecord): Promise<void> {
  const persona = (await findSession({ id: task.sessionId }).catch(() => null))?.personaName ?? 'unknown';
  const { id: taskId, traceId, sessionId, status, stepsUsed: steps, usage, createdAt: startedAt, finishedAt, error, parentTaskId } = task;
  recordTaskEnd({ taskId, traceId, sessionId, persona, status, steps, costUsd: usage.costUsd, startedAt, endedAt: finishedAt ?? new Date(), error, parentTaskId });
}
