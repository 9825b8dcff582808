// The task loop (ARCHITECTURE §11, seed 003's DMN): step after step without anyone typing
// "continue", each step an Internal Dialog turn of the session's mind, until the model finishes,
// asks, yields, a limit ends it, or the user cancels. Every step ends in a NextStep value the
// loop switches on exhaustively. Time, waits and effects go through the engine's context only.
//
// Written to replay: on the durable engine a run recovered after a crash goes through this code
// again with every finished step answered from the journal. So a step returns all the loop
// decides on (StepOutcome: JSON, no live objects), the task record the loop starts from is a
// journaled step, and a step cut by the crash finds its open turn inside the step (its tool calls
// that finished are not run again).
import { assertNever } from '@/lib/mind/assert-never';
import { errorText } from '@/lib/errors/error-text';
import { STORE_FAULT_WORDS, storeFault, storeFaultPauseMs } from '@/lib/store/store-faults';
import { RunCancelledError, untilShutdown, type WorkflowContext } from '@/lib/engine/execution-engine';
import { findTask, updateTask, type TaskRecord } from '@/lib/store/tasks-repository';
import { FINAL_STATUSES, listToolCalls, loadOpenTaskTurn } from '@/lib/store/tool-calls-repository';
import { markSessionUntrusted } from '@/lib/store/untrusted-repository';
import type { NextStep, TaskStatus, TaskUsage } from '@/lib/store/task-types';
import type { StepOutcome, TaskMind, TaskWorkflowDeps } from './task-loop-types';
import { RepeatDetector, stepsExhausted, timedOut, type RepeatVerdict } from './task-policy';
import { sharedNotes } from './task-notes';
import { TaskRun } from './task-run';
import { runStep } from './task-step';

export type { StepOutcome, TaskMind, TaskWorkflowDeps } from './task-loop-types';

/** How a step ended, from what it returned and what the model asked through the task's tools. */
export function decideNext(step: Pick<StepOutcome, 'outcome' | 'error' | 'errorKind' | 'budgetStop' | 'requests' | 'repeat' | 'repeatedCall'>): NextStep {
  const { requests } = step;
  if (step.budgetStop) return { kind: 'budget_exhausted', reason: step.budgetStop };
  if (step.outcome === 'failed' && step.errorKind === 'allowance_spent') return { kind: 'allowance', reason: step.error ?? 'the daily allowance is spent' };
  if (step.repeat === 'fail') return { kind: 'failed', reason: `repeated calls: ${step.repeatedCall} gave the same result again after the warning` };
  if (requests.finish !== null) return { kind: 'finish', result: requests.finish };
  if (requests.question !== null) return { kind: 'ask_user', question: requests.question };
  if (requests.yielded) return { kind: 'yield' };
  if (step.outcome === 'failed') return { kind: 'failed', reason: step.error ?? 'the model call failed' };
  if (step.outcome === 'stopped') return { kind: 'yield' }; // the Stop button pauses the task
  return { kind: 'continue' };
}

export async function runTaskWorkflow(context: WorkflowContext, deps: TaskWorkflowDeps, taskId: string): Promise<void> {
  const task = await context.step('load', () => findTask(taskId));
  if (!task || FINAL_TASK.has(task.status)) return;
  let mind: TaskMind;
  try {
    deps.atRest?.(taskId, true); // waiting for the session's mind holds nothing in flight
    mind = await deps.mind(task.sessionId, context.signal);
    deps.atRest?.(taskId, false);
  } catch (error) {
    // Cancelled while its session was not running here, or its mind stopped before it loaded.
    if (deps.stopping()) return untilShutdown(context.signal);
    const status = context.signal.aborted ? 'cancelled' : 'failed';
    const reason = status === 'cancelled' ? 'cancelled by the user' : `the session's mind stopped before the task could run: ${errorText(error)}`;
    const ended = await updateTask(task.id, { status, error: reason, blockedOn: null, finishedAt: new Date(context.now()) }, ['pending', 'running', 'blocked']);
    if (ended) deps.announce(status, ended);
    return;
  }
  const run = new TaskRun(task, mind, context, deps);
  const startedAt = task.startedAt ?? new Date(context.now());
  const wasPending = task.status === 'pending';
  await context.step('start', () => run.save({ status: run.task.status === 'blocked' ? 'blocked' : 'running', startedAt }, ['pending', 'running', 'blocked']));
  if (wasPending) deps.announce('started', run.task);

  mind.setTaskActive(true);
  try {
    await loop(run, context, deps, startedAt);
  } finally {
    mind.setTaskActive(false);
  }
}

/** Step after step until the task ends, waits for a card (the restart continues it) or the app stops. */
async function loop(run: TaskRun, context: WorkflowContext, deps: TaskWorkflowDeps, startedAt: Date): Promise<void> {
  const { id, sessionId, constraints } = run.task;
  const notes: string[] = [];
  // Blocked on a question or a pause when the app stopped: still waiting for the person.
  const waitingOn = run.task.status === 'blocked' ? run.task.blockedOn : null;
  if (waitingOn && waitingOn.kind !== 'approval') {
    const answer = await run.waitForAnswer(waitingOn);
    if (answer === null) return run.cancelled();
    notes.push(answerNote(waitingOn, answer));
  }
  // Repeats count across a restart or a durable replay: the task's finished calls so far, in
  // order, then the calls of the steps that run here (a replayed step calls nothing).
  const repeats = new RepeatDetector();
  const earlier = (await listToolCalls({ sessionId, limit: 10_000 })).filter((call) => call.taskId === id && FINAL_STATUSES.includes(call.status));
  let lastVerdict: RepeatVerdict = 'ok';
  for (const call of earlier) lastVerdict = repeats.record(call);
  if (lastVerdict === 'warn') notes.push(repeatWarning(`${earlier.at(-1)!.name} ${JSON.stringify(earlier.at(-1)!.args)}`));
  let usage: TaskUsage = { ...run.task.usage };
  // Offered only when the session's graph names a specialist.
  const delegation = deps.delegation && (await deps.delegation.specialistsOf(sessionId)).length > 0 ? deps.delegation : null;
  // A team (a task that delegates, or one delegated to) shares its notes (lib/tasks/task-notes.ts).
  const team = delegation !== null || run.task.parentTaskId !== null;

  // A durable replay goes again through steps the task already counted (its `load` step is the
  // record as the run first read it): their bookkeeping is not done twice — steps_used never goes
  // back, no step is announced twice (issue 73 §6: 6 → 5 → 6 → 7). A read, not a decision: the
  // journal still decides every step.
  const counted = (await findTask(id))?.stepsUsed ?? 0;
  let faults = 0; // the store's condition met in a row (a wait, not a failure)
  for (let step = run.task.stepsUsed; ; step++) {
    if (context.signal.aborted) return run.cancelled();
    // A step cut by a restart is not held to the limits: its turn continues (a card may still wait).
    // The limits depend on the clock anyway, so a replay may judge them again (ctx.now).
    const cut = await loadOpenTaskTurn({ sessionId, taskId: id });
    const limit = cut ? null : (stepsExhausted(step, constraints) ?? timedOut(startedAt.getTime(), context.now(), constraints));
    if (limit) return run.end('failed', limit);

    const teamNotes = team ? await sharedNotes(id) : null;
    if (teamNotes?.untrusted) await markSessionUntrusted(sessionId, teamNotes.untrusted);
    let outcome: StepOutcome;
    try {
      outcome = await runStep({ run, context, step, startedAt, constraints, notes, teamNotes: teamNotes?.lines ?? null, delegation, repeats, usage, attempt: faults }, cut);
    } catch (error) {
      if (deps.stopping()) return run.leave();
      // A durable engine ends a cancelled run's step at once (the turn stops in the background).
      if (context.signal.aborted || error instanceof RunCancelledError) return run.cancelled();
      // The database unreachable or the disk full is a wait, not the task's failure (issue 73 §3–4):
      // the same step again after a pause that grows to a minute; logged on the first and every tenth.
      const fault = storeFault(error);
      if (!fault) return run.end('failed', `the step could not run: ${errorText(error)}`);
      faults += 1;
      if (faults === 1 || faults % 10 === 0) console.error(`[tasks] task ${id} waits: ${STORE_FAULT_WORDS[fault]} (try ${faults})`);
      await context.sleep(storeFaultPauseMs(faults));
      step -= 1;
      continue;
    }
    faults = 0;
    if (deps.stopping() && outcome.requests.finish === null) {
      // A step whose turn ended with nothing asked of the task is done and counted: the restart
      // goes on from the next one (its calls are not made again; a durable replay has the step in
      // its journal). One that asked or yielded runs again to ask it; one that finished ends the
      // task now. A step cut by the shutdown never gets here (runStep leaves it to the restart).
      const { plan, question, yielded } = outcome.requests;
      const done = outcome.outcome === 'complete' && !question && !yielded ? { stepsUsed: step + 1, ...(plan && { plan }) } : {};
      await run.save({ usage: outcome.usage, ...done }); // its calls were paid, whether it counts or runs again
      return run.leave();
    }
    usage = outcome.usage;
    if (step + 1 > counted) {
      await run.saveAndAnnounce('step', { stepsUsed: step + 1, usage, ...(outcome.requests.plan && { plan: outcome.requests.plan }) });
      run.mind.noteForSubconscious(`task "${run.task.goal.slice(0, 80)}": step ${step + 1} of ${constraints.max_steps} done`);
    }
    if (outcome.repeat === 'warn') notes.push(repeatWarning(outcome.repeatedCall));
    if (context.signal.aborted) return run.cancelled();

    const next = decideNext(outcome);
    switch (next.kind) {
      case 'continue':
        await context.sleep(deps.workingDelayMs);
        continue;
      case 'finish':
        return run.end('completed', next.result);
      case 'ask_user':
      case 'yield': {
        const blockedOn = next.kind === 'ask_user' ? { kind: 'question' as const, question: next.question } : { kind: 'yield' as const };
        const answer = await run.waitForAnswer(blockedOn);
        if (answer === null) return run.cancelled();
        notes.push(answerNote(blockedOn, answer));
        continue;
      }
      case 'allowance':
        if (!(await run.waitOutAllowance(step, next.reason))) return run.cancelled();
        continue;
      case 'blocked_on_approval':
        return; // left waiting on a card: the restart continues it
      case 'budget_exhausted':
      case 'failed':
        return run.end('failed', next.reason);
      default:
        return assertNever(next, 'next step');
    }
  }
}

const FINAL_TASK = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

function repeatWarning(call: string | null): string {
  return `you called ${call} three times with the same result; change your approach or the task fails`;
}

function answerNote(blockedOn: NonNullable<TaskRecord['blockedOn']>, answer: string): string {
  if (blockedOn.kind === 'question') return `you asked "${blockedOn.question}"; the user answered: ${answer}`;
  return answer.trim() ? `the user resumed the task and said: ${answer}` : 'the user resumed the task';
}
