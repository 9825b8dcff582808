// One run of the task loop's record keeping (task-workflow.ts): the task as its last save left it,
// saves one after another, how a task ends (remembered, announced, told to the Subconscious) and
// how it waits for a person — an answer, a resume, or the daily allowance's renewal.
import { spend } from '@/lib/people/rights';
import { untilShutdown, type WorkflowContext } from '@/lib/engine/execution-engine';
import { withheldText } from '@/lib/config/trust-config';
import { appendMemory, promoteTaskMemories } from '@/lib/memory/memory-store';
import { findSession } from '@/lib/store/sessions-repository';
import type { TaskStatus } from '@/lib/store/task-types';
import { updateTask, type TaskPatch, type TaskRecord } from '@/lib/store/tasks-repository';
import { sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import type { TaskMind, TaskWorkflowDeps } from './task-loop-types';
import { logFailure } from '@/lib/store/store-faults';

export class TaskRun {
  // Saves run one after another, each on the task as the previous one left it: a card's `blocked`
  // and a plan update from the same round must not announce each other's stale status.
  private saving: Promise<unknown> = Promise.resolve();

  constructor(
    public task: TaskRecord,
    readonly mind: TaskMind,
    private readonly context: WorkflowContext,
    private readonly deps: TaskWorkflowDeps,
  ) {}

  save(patch: TaskPatch, from: readonly TaskStatus[] = ['running', 'blocked']): Promise<TaskRecord | null> {
    const run = this.saving.then(async () => {
      const saved = await updateTask(this.task.id, patch, from, this.task);
      if (saved) this.task = saved;
      return saved;
    });
    this.saving = run.catch(() => undefined);
    return run;
  }

  /** Saved, then announced: the bus hears what the row now says. */
  async saveAndAnnounce(event: Parameters<TaskWorkflowDeps['announce']>[0], patch: TaskPatch): Promise<void> {
    const saved = await this.save(patch);
    if (saved) this.deps.announce(event, saved);
  }

  async end(status: 'completed' | 'failed' | 'cancelled', text: string): Promise<void> {
    const saved = await this.save({ status, finishedAt: new Date(this.context.now()), blockedOn: null, ...(status === 'completed' ? { result: text } : { error: text }) }, ['pending', 'running', 'blocked']);
    if (!saved) return;
    // Remembered before it is announced: whoever sees "completed" finds the memory.
    if (status === 'completed') await rememberTask(saved, text);
    this.deps.announce(status, saved);
    // A result written while the task's steps held untrusted content stays in them (issue 44).
    const held = await sessionUntrustedSource(saved.sessionId);
    this.mind.noteForSubconscious(`task "${saved.goal.slice(0, 80)}" ${status}: ${held ? withheldText(held) : text.slice(0, 160)}`);
  }

  /** The user's cancel ends the task; a shutdown also aborts the run, and then the task is left as it is, for the restart. */
  async cancelled(): Promise<void> {
    if (this.deps.stopping()) return this.leave();
    await this.end('cancelled', 'cancelled by the user');
  }

  /** The process is stopping: the task stays as it is, for the restart or another member. */
  stopping(): boolean {
    return this.deps.stopping();
  }

  /** Left for the restart: returns once the engine's shutdown aborted the run, never before (untilShutdown). */
  leave(): Promise<void> {
    this.deps.atRest?.(this.task.id, true);
    return untilShutdown(this.context.signal);
  }

  /** A wait that holds nothing in flight: a shutdown need not let it finish. */
  private async resting<T>(wait: () => Promise<T>): Promise<T> {
    this.deps.atRest?.(this.task.id, true);
    try {
      return await wait();
    } finally {
      this.deps.atRest?.(this.task.id, false);
    }
  }

  /** A person's answer, or null for the cancel that ends the wait. */
  async waitForAnswer(blockedOn: NonNullable<TaskRecord['blockedOn']>): Promise<string | null> {
    await this.saveAndAnnounce('blocked', { status: 'blocked', blockedOn });
    this.mind.setTaskActive(false); // meanwhile the user talks to the mind as usual
    try {
      const answer = await this.resting(() => this.context.waitFor<string>('resume'));
      this.mind.setTaskActive(true);
      await this.saveAndAnnounce('started', { status: 'running', blockedOn: null });
      return answer;
    } catch {
      return null; // cancelled
    }
  }

  /**
   * Paused by a daily allowance, with the reason; looked at again every minute (durably): it goes
   * on at the day's renewal, or as soon as the owner raises the allowance. False: cancelled or
   * stopping meanwhile (the caller ends the task, or leaves it for the restart).
   */
  async waitOutAllowance(step: number, reason: string): Promise<boolean> {
    await this.saveAndAnnounce('blocked', { status: 'blocked', blockedOn: { kind: 'allowance', reason } });
    this.mind.setTaskActive(false);
    for (let look = 0; ; look++) {
      await this.resting(() => this.context.sleep(this.deps.allowanceLookMs ?? 60_000));
      if (this.context.signal.aborted || this.deps.stopping()) return false;
      if (!(await this.context.step(`allowance-${step}-${look}`, async () => (await spend(this.task.sessionId, new Date(this.context.now()), { reply: false })).verdict === 'refuse'))) break;
    }
    this.mind.setTaskActive(true);
    await this.saveAndAnnounce('started', { status: 'running', blockedOn: null });
    return true;
  }
}

/** A finished task is remembered by its persona (a task summary), and its short-term notes become long-term. */
async function rememberTask(task: TaskRecord, result: string): Promise<void> {
  try {
    const session = await findSession({ id: task.sessionId });
    if (!session) return;
    await appendMemory({ personaName: session.personaName, kind: 'task_summary', content: `Task "${task.goal}" completed: ${result}`.slice(0, 2_000), sessionId: task.sessionId, taskId: task.id, importance: 0.7 });
    await promoteTaskMemories(task.id);
  } catch (error) {
    logFailure(`[tasks] could not remember task ${task.id}`, error);
  }
}
