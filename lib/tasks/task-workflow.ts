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
import { spend } from '@/lib/people/rights';
import { RunCancelledError, type WorkflowContext } from '@/lib/engine/execution-engine';
import type { BackendRequest } from '@/lib/backends/model-backend';
import type { TurnResult } from '@/lib/mind/outcomes';
import type { ModelCallResult } from '@/lib/mind/model-call';
import { estimateRequestTokens } from '@/lib/mind/token-budget';
import { findTask, updateTask, type TaskPatch, type TaskRecord } from '@/lib/store/tasks-repository';
import { FINAL_STATUSES, listToolCalls, loadOpenTaskTurn, type AgentStepRecord, type AgentTurnRecord, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { callBudgetStop, RepeatDetector, stepsExhausted, timedOut, type RepeatVerdict } from './task-policy';
import { taskBrief } from './task-prompt';
import { appendMemory, promoteTaskMemories } from '@/lib/memory/memory-store';
import { findSession } from '@/lib/store/sessions-repository';
import { markSessionUntrusted, sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import { withheldText } from '@/lib/config/trust-config';
import { emptyStepRequests, taskTools, type StepRequests, type TaskTurn } from './task-turn';
import { delegateTool, type DelegationHost } from './delegate-tool';
import { noteTool, sharedNotes } from './task-notes';
import type { NextStep, TaskStatus, TaskUsage } from '@/lib/store/task-types';

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
  let task = await context.step('load', () => findTask(taskId));
  if (!task || FINAL_TASK.has(task.status)) return;
  const id = task.id;
  let mind: TaskMind;
  try {
    mind = await deps.mind(task.sessionId, context.signal);
  } catch (error) {
    // Cancelled while its session was not running here, or its mind stopped before it loaded.
    if (deps.stopping()) return;
    const status = context.signal.aborted ? 'cancelled' : 'failed';
    const reason = status === 'cancelled' ? 'cancelled by the user' : `the session's mind stopped before the task could run: ${(error as Error).message}`;
    const ended = await updateTask(id, { status, error: reason, blockedOn: null, finishedAt: new Date(context.now()) }, ['pending', 'running', 'blocked']);
    if (ended) deps.announce(status, ended);
    return;
  }
  const constraints = task.constraints;
  const startedAt = task.startedAt ?? new Date(context.now());

  // Saves run one after another, each on the task as the previous one left it: a card's `blocked`
  // and a plan update from the same round must not announce each other's stale status.
  let saving: Promise<unknown> = Promise.resolve();
  const save = (patch: TaskPatch, from: readonly TaskStatus[] = ['running', 'blocked']): Promise<TaskRecord | null> => {
    const run = saving.then(async () => {
      const saved = await updateTask(id, patch, from, task ?? undefined);
      if (saved) task = saved;
      return saved;
    });
    saving = run.catch(() => undefined);
    return run;
  };
  const end = async (status: 'completed' | 'failed' | 'cancelled', text: string) => {
    const saved = await save({ status, finishedAt: new Date(context.now()), blockedOn: null, ...(status === 'completed' ? { result: text } : { error: text }) }, ['pending', 'running', 'blocked']);
    if (saved) {
      // Remembered before it is announced: whoever sees "completed" finds the memory.
      if (status === 'completed') await rememberTask(saved, text);
      deps.announce(status, saved);
      // A result written while the task's steps held untrusted content stays in them (issue 44).
      const held = await sessionUntrustedSource(saved.sessionId);
      mind.noteForSubconscious(`task "${saved.goal.slice(0, 80)}" ${status}: ${held ? withheldText(held) : text.slice(0, 160)}`);
    }
  };
  // A shutdown also aborts the run: then the task is left as it is, for the restart.
  const cancelled = async () => {
    if (!deps.stopping()) await end('cancelled', 'cancelled by the user');
  };
  // A person's answer, or the cancel that ends the wait.
  const waitForAnswer = async (blockedOn: NonNullable<TaskRecord['blockedOn']>): Promise<string | null> => {
    const blocked = await save({ status: 'blocked', blockedOn });
    if (blocked) deps.announce('blocked', blocked);
    mind.setTaskActive(false); // meanwhile the user talks to the mind as usual
    try {
      const answer = await context.waitFor<string>('resume');
      mind.setTaskActive(true);
      const resumed = await save({ status: 'running', blockedOn: null });
      if (resumed) deps.announce('started', resumed);
      return answer;
    } catch {
      return null; // cancelled
    }
  };

  const wasPending = task.status === 'pending';
  await context.step('start', () => save({ status: task!.status === 'blocked' ? 'blocked' : 'running', startedAt }, ['pending', 'running', 'blocked']));
  if (wasPending) deps.announce('started', task);

  const notes: string[] = [];
  mind.setTaskActive(true);
  try {
    // Blocked on a question or a pause when the app stopped: still waiting for the person.
    const waitingOn = task.status === 'blocked' ? task.blockedOn : null;
    if (waitingOn && waitingOn.kind !== 'approval') {
      const answer = await waitForAnswer(waitingOn);
      if (answer === null) return await cancelled();
      notes.push(answerNote(waitingOn, answer));
    }
    // Repeats count across a restart or a durable replay: the task's finished calls so far, in
    // order, then the calls of the steps that run here (a replayed step calls nothing).
    const repeats = new RepeatDetector();
    const earlier = (await listToolCalls({ sessionId: task.sessionId, limit: 10_000 })).filter((call) => call.taskId === id && FINAL_STATUSES.includes(call.status));
    let lastVerdict: RepeatVerdict = 'ok';
    for (const call of earlier) lastVerdict = repeats.record(call);
    if (lastVerdict === 'warn') notes.push(repeatWarning(`${earlier.at(-1)!.name} ${JSON.stringify(earlier.at(-1)!.args)}`));
    let usage: TaskUsage = { ...task.usage };
    // Offered only when the session's graph names a specialist.
    const delegation = deps.delegation && (await deps.delegation.specialistsOf(task.sessionId)).length > 0 ? deps.delegation : null;
    // A team (a task that delegates, or one delegated to) shares its notes (lib/tasks/task-notes.ts).
    const team = delegation !== null || task.parentTaskId !== null;

    for (let step = task.stepsUsed; ; step++) {
      if (context.signal.aborted) return await cancelled();
      // A step cut by a restart is not held to the limits: its turn continues (a card may still wait).
      // The limits depend on the clock anyway, so a replay may judge them again (ctx.now).
      const cut = await loadOpenTaskTurn({ sessionId: task.sessionId, taskId: id });
      const limit = cut ? null : (stepsExhausted(step, constraints) ?? timedOut(startedAt.getTime(), context.now(), constraints));
      if (limit) return await end('failed', limit);

      const teamNotes = team ? await sharedNotes(id) : { lines: [], untrusted: null };
      if (teamNotes.untrusted) await markSessionUntrusted(task.sessionId, teamNotes.untrusted);
      const requests = emptyStepRequests();
      const awaiting = new Set<string>();
      // Set from the calls' callbacks during the step.
      const stepRepeat = { verdict: 'ok' as RepeatVerdict, call: null as string | null };
      const stepUsage = usage;
      const turn: TaskTurn = {
        taskId: id,
        traceId: task.traceId,
        goal: task.goal,
        brief: taskBrief({ task, step, elapsedMs: context.now() - startedAt.getTime(), notes: notes.splice(0), teamNotes: teamNotes.lines }),
        taskTools: [
          ...taskTools(requests, async (plan) => {
            const saved = await save({ plan });
            if (saved) deps.announce('step', saved);
          }),
          ...(team ? [noteTool(task)] : []),
          // A tool limit that leaves `delegate` out means this task does its work itself.
          ...(delegation && (!constraints.tools || constraints.tools.includes('delegate')) ? [delegateTool({ host: delegation, parent: task, usage: stepUsage, stepsUsed: step, elapsedS: () => (context.now() - startedAt.getTime()) / 1000, signal: context.signal })] : []),
        ],
        allowedTools: constraints.tools,
        signal: context.signal,
        beforeCall: (request: BackendRequest) =>
          timedOut(startedAt.getTime(), context.now(), constraints) ??
          callBudgetStop({ usage: stepUsage, constraints, model: request.model, promptTokens: estimateRequestTokens(request), maxTokens: request.maxTokens }),
        endAfterTools: () => requests.finish !== null || requests.question !== null || requests.yielded,
        afterCall: (result: ModelCallResult) => {
          if (!result.usage) return;
          stepUsage.inputTokens += result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens;
          stepUsage.outputTokens += result.usage.outputTokens;
          if (result.usage.costUsd === 'unknown') stepUsage.costUnknown = true;
          else stepUsage.costUsd += result.usage.costUsd;
        },
        onCallChanged: (call: ToolCallRecord) => {
          // Blocked while any of the step's cards waits; running again when the last one is decided.
          const wasWaiting = awaiting.size > 0;
          if (call.status === 'awaiting_approval') awaiting.add(call.id);
          else awaiting.delete(call.id);
          if (awaiting.size > 0 && (call.status === 'awaiting_approval' || !wasWaiting)) {
            void save({ status: 'blocked', blockedOn: { kind: 'approval', call_ids: [...awaiting] } }).then((saved) => saved && deps.announce('blocked', saved));
          } else if (awaiting.size === 0 && wasWaiting) {
            void save({ status: 'running', blockedOn: null }).then((saved) => saved && deps.announce('step', saved));
          }
          if (FINAL_STATUSES.includes(call.status) && stepRepeat.verdict !== 'fail') {
            const verdict = repeats.record(call);
            if (verdict !== 'ok') {
              stepRepeat.verdict = verdict;
              stepRepeat.call = `${call.name} ${JSON.stringify(call.args)}`;
            }
          }
        },
      };
      let outcome: StepOutcome;
      try {
        outcome = await context.step(`step-${step}`, async (): Promise<StepOutcome> => {
          // A step cut by a crash (read just above, in this same live pass): its turn continues from
          // its stored steps; calls that finished are not run again.
          if (cut && task!.status === 'blocked') await save({ status: 'running', blockedOn: null });
          const result = await mind.runTaskStep(turn, cut ?? undefined);
          return {
            outcome: result.outcome,
            error: result.error?.message ?? null,
            errorKind: result.error?.kind ?? null,
            budgetStop: result.budgetStop ?? null,
            requests: { ...requests },
            repeat: stepRepeat.verdict,
            repeatedCall: stepRepeat.call,
            usage: { ...stepUsage },
          };
        });
      } catch (error) {
        if (deps.stopping()) return;
        // A durable engine ends a cancelled run's step at once (the turn stops in the background).
        if (context.signal.aborted || error instanceof RunCancelledError) return await cancelled();
        return await end('failed', `the step could not run: ${(error as Error).message}`);
      }
      if (deps.stopping()) {
        // A step whose turn ended with nothing asked of the task is done and counted: the restart
        // goes on from the next one (its calls are not made again). A step cut by the shutdown is
        // continued by the restart; one that asked to finish, ask or yield runs again to ask it.
        const { plan, finish, question, yielded } = outcome.requests;
        const done = outcome.outcome === 'complete' && !finish && !question && !yielded ? { stepsUsed: step + 1, ...(plan && { plan }) } : {};
        await save({ usage, ...done });
        return;
      }
      usage = outcome.usage;
      const saved = await save({ stepsUsed: step + 1, usage, ...(outcome.requests.plan && { plan: outcome.requests.plan }) });
      if (saved) deps.announce('step', saved);
      mind.noteForSubconscious(`task "${task.goal.slice(0, 80)}": step ${step + 1} of ${constraints.max_steps} done`);
      if (outcome.repeat === 'warn') notes.push(repeatWarning(outcome.repeatedCall));
      if (context.signal.aborted) return await cancelled();

      const next = decideNext(outcome);
      switch (next.kind) {
        case 'continue':
          await context.sleep(deps.workingDelayMs);
          continue;
        case 'finish':
          return await end('completed', next.result);
        case 'ask_user':
        case 'yield': {
          const blockedOn = next.kind === 'ask_user' ? { kind: 'question' as const, question: next.question } : { kind: 'yield' as const };
          const answer = await waitForAnswer(blockedOn);
          if (answer === null) return await cancelled();
          notes.push(answerNote(blockedOn, answer));
          continue;
        }
        case 'allowance': {
          // Paused with the reason; looked at again every minute (durably): it goes on at the day's
          // renewal, or as soon as the owner raises the allowance.
          const blocked = await save({ status: 'blocked', blockedOn: { kind: 'allowance', reason: next.reason } });
          if (blocked) deps.announce('blocked', blocked);
          mind.setTaskActive(false);
          for (let look = 0; ; look++) {
            await context.sleep(deps.allowanceLookMs ?? 60_000);
            if (context.signal.aborted) return await cancelled();
            if (deps.stopping()) return;
            if (!(await context.step(`allowance-${step}-${look}`, async () => (await spend(task!.sessionId, new Date(context.now()))).verdict === 'refuse'))) break;
          }
          mind.setTaskActive(true);
          const resumed = await save({ status: 'running', blockedOn: null });
          if (resumed) deps.announce('started', resumed);
          continue;
        }
        case 'blocked_on_approval':
          return; // left waiting on a card: the restart continues it
        case 'budget_exhausted':
          return await end('failed', next.reason);
        case 'failed':
          return await end('failed', next.reason);
        default:
          return assertNever(next, 'next step');
      }
    }
  } finally {
    mind.setTaskActive(false);
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
    console.error(`[tasks] could not remember task ${task.id}`, error);
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
