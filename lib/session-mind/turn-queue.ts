// What the Internal Dialog does next, in order: a turn cut by a restart, a task's step (which takes
// the user's queued messages with it — they steer the task), the user's queued messages, a
// spontaneous turn. While a task is between steps, messages and spontaneous turns wait for it.
// Pure bookkeeping: the mind runs the work and settles a task step with its result.
import type { ResumableTurn } from '@/lib/agent/resume-turns';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import type { TurnResult } from '@/lib/mind/outcomes';
import { newTurnId, type TurnWork } from './turn-work';

interface TaskStep {
  task: TaskTurn;
  resume?: TurnWork['resume'];
  done: (result: TurnResult) => void;
  fail: (error: Error) => void;
}

export class TurnQueue {
  private readonly messages: MessageRecord[] = [];
  private readonly traces = new Map<number, string>();
  private readonly resumable: ResumableTurn[] = [];
  private readonly taskSteps: TaskStep[] = [];
  private readonly settling = new Map<string, Pick<TaskStep, 'done' | 'fail'>>();
  private spontaneous = false;
  /** A task is between its steps. */
  taskActive = false;

  get queuedMessages(): number {
    return this.messages.length;
  }

  /** Something is waiting (a spontaneous turn then waits its turn instead of being asked for). */
  get busy(): boolean {
    return this.messages.length > 0 || this.spontaneous;
  }

  restore(resumable: ResumableTurn[], unanswered: MessageRecord[]): void {
    this.resumable.push(...resumable);
    const continued = new Set(resumable.flatMap((turn) => turn.userMessages.map((message) => message.id)));
    this.messages.push(...unanswered.filter((message) => !continued.has(message.id)));
  }

  /** `traceparent`: the trace the message came in (its turn continues the first one's). */
  pushMessage(message: MessageRecord, traceparent?: string): void {
    this.messages.push(message);
    if (traceparent) this.traces.set(message.id, traceparent);
  }

  /** The queued messages a turn takes, and the trace it continues. */
  private takeMessages(): Pick<TurnWork, 'userMessages' | 'traceparent'> {
    const userMessages = this.messages.splice(0);
    const traceparent = userMessages.map((message) => this.traces.get(message.id)).find(Boolean);
    for (const message of userMessages) this.traces.delete(message.id);
    return { userMessages, ...(traceparent && { traceparent }) };
  }

  pushSpontaneous(): void {
    this.spontaneous = true;
  }

  /** A task's step; settled with its turn's result (or failed when the mind stops first). */
  pushTaskStep(task: TaskTurn, resume?: TurnWork['resume']): Promise<TurnResult> {
    return new Promise((done, fail) => this.taskSteps.push({ task, resume, done, fail }));
  }

  next(taken: () => TurnWork['taken']): TurnWork | null {
    const resumed = this.resumable.shift();
    if (resumed) return { turnId: resumed.resume.turn.turnId, spontaneous: resumed.resume.turn.spontaneous, userMessages: resumed.userMessages, taken: taken(), resume: resumed.resume };
    const step = this.taskSteps.shift();
    if (step) {
      const turnId = step.resume?.turn.turnId ?? newTurnId();
      this.settling.set(turnId, step);
      return { turnId, spontaneous: false, ...this.takeMessages(), taken: taken(), task: step.task, resume: step.resume };
    }
    if (this.taskActive) return null; // the task's next step takes them
    if (this.messages.length > 0) return { turnId: newTurnId(), spontaneous: false, ...this.takeMessages(), taken: taken() };
    if (this.spontaneous) {
      this.spontaneous = false;
      return { turnId: newTurnId(), spontaneous: true, userMessages: [], taken: taken() };
    }
    return null;
  }

  /** The turn ended: its task step (if it was one) gets the result. */
  settle(turnId: string, outcome: { result: TurnResult } | { error: Error }): void {
    const step = this.settling.get(turnId);
    this.settling.delete(turnId);
    if (!step) return;
    if ('result' in outcome) step.done(outcome.result);
    else step.fail(outcome.error);
  }

  /** The mind stopped: task steps not yet run fail (their task stays as it is for the restart). */
  failPendingSteps(error: Error): void {
    for (const step of this.taskSteps.splice(0)) step.fail(error);
  }
}
