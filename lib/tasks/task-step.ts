// One step of the task loop (task-workflow.ts): the turn the session's mind runs for it — its
// brief, the task's own tools, the budget checked before every model call, the cards that block
// the task while they wait, the repeats counted as calls finish — and the journaled step that runs
// it and returns everything the loop decides on afterwards (StepOutcome: JSON, no live objects).
import { RunCancelledError, untilShutdown, type WorkflowContext } from '@/lib/engine/execution-engine';
import type { BackendRequest } from '@/lib/backends/model-backend';
import type { ModelCallResult } from '@/lib/mind/model-call';
import { estimateRequestTokens } from '@/lib/mind/token-budget';
import type { TaskConstraints, TaskUsage } from '@/lib/store/task-types';
import { FINAL_STATUSES, type AgentStepRecord, type AgentTurnRecord, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { delegateTool, type DelegationHost } from './delegate-tool';
import { noteTool } from './task-notes';
import { callBudgetStop, timedOut, type RepeatDetector, type RepeatVerdict } from './task-policy';
import { taskBrief } from './task-prompt';
import type { TaskRun } from './task-run';
import { emptyStepRequests, taskTools, type StepRequests, type TaskTurn } from './task-turn';
import type { StepOutcome } from './task-loop-types';

/** What the step's callbacks gather while its turn runs. */
interface StepState {
  requests: StepRequests;
  repeat: { verdict: RepeatVerdict; call: string | null };
  usage: TaskUsage;
}

export interface StepInput {
  run: TaskRun;
  context: WorkflowContext;
  step: number;
  startedAt: Date;
  constraints: TaskConstraints;
  /** Lines for the brief (answers, warnings), taken by this step. */
  notes: string[];
  /** The team's shared notes (a task that delegates, or one delegated to), or null outside a team. */
  teamNotes: string[] | null;
  /** Specialists this task may hand work to, or null. */
  delegation: DelegationHost | null;
  repeats: RepeatDetector;
  /** The task's usage so far; the step's calls add to a copy. */
  usage: TaskUsage;
  /** The step tried again after the store's condition failed it (0: the first try): a journal entry of its own. */
  attempt?: number;
}

/** The step's turn and what its callbacks gather. */
function stepTurn(input: StepInput): { turn: TaskTurn; state: StepState } {
  const { run, context, step, startedAt, constraints, delegation, repeats } = input;
  const task = run.task;
  const state: StepState = { requests: emptyStepRequests(), repeat: { verdict: 'ok', call: null }, usage: input.usage };
  const awaiting = new Set<string>();
  const turn: TaskTurn = {
    taskId: task.id,
    traceId: task.traceId,
    goal: task.goal,
    brief: taskBrief({ task, step, elapsedMs: context.now() - startedAt.getTime(), notes: input.notes.splice(0), teamNotes: input.teamNotes ?? [] }),
    taskTools: [
      ...taskTools(state.requests, (plan) => run.saveAndAnnounce('step', { plan })),
      ...(input.teamNotes ? [noteTool(task)] : []),
      // A tool limit that leaves `delegate` out means this task does its work itself.
      ...(delegation && (!constraints.tools || constraints.tools.includes('delegate'))
        ? [delegateTool({ host: delegation, parent: task, usage: state.usage, stepsUsed: step, elapsedS: () => (context.now() - startedAt.getTime()) / 1000, signal: context.signal })]
        : []),
    ],
    allowedTools: constraints.tools,
    signal: context.signal,
    beforeCall: (request: BackendRequest) =>
      timedOut(startedAt.getTime(), context.now(), constraints) ??
      callBudgetStop({ usage: state.usage, constraints, model: request.model, promptTokens: estimateRequestTokens(request), maxTokens: request.maxTokens }),
    endAfterTools: () => state.requests.finish !== null || state.requests.question !== null || state.requests.yielded,
    afterCall: (result: ModelCallResult) => {
      if (!result.usage) return;
      state.usage.inputTokens += result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens;
      state.usage.outputTokens += result.usage.outputTokens;
      if (result.usage.costUsd === 'unknown') state.usage.costUnknown = true;
      else state.usage.costUsd += result.usage.costUsd;
    },
    onCallChanged: (call: ToolCallRecord) => {
      // Blocked while any of the step's cards waits; running again when the last one is decided.
      const wasWaiting = awaiting.size > 0;
      if (call.status === 'awaiting_approval') awaiting.add(call.id);
      else awaiting.delete(call.id);
      if (awaiting.size > 0 && (call.status === 'awaiting_approval' || !wasWaiting)) void run.saveAndAnnounce('blocked', { status: 'blocked', blockedOn: { kind: 'approval', call_ids: [...awaiting] } });
      else if (awaiting.size === 0 && wasWaiting) void run.saveAndAnnounce('step', { status: 'running', blockedOn: null });
      if (FINAL_STATUSES.includes(call.status) && state.repeat.verdict !== 'fail') {
        const verdict = repeats.record(call);
        if (verdict !== 'ok') state.repeat = { verdict, call: `${call.name} ${JSON.stringify(call.args)}` };
      }
    },
  };
  return { turn, state };
}

/**
 * The journaled step: its turn run by the session's mind. `cut`: the step's turn a crash cut (read
 * just before, in this same live pass) — it continues from its stored steps; calls that finished
 * are not run again.
 */
export function runStep(input: StepInput, cut: { turn: AgentTurnRecord; steps: AgentStepRecord[] } | null): Promise<StepOutcome> {
  const { turn, state } = stepTurn(input);
  const { run } = input;
  return input.context.step(input.attempt ? `step-${input.step}-again-${input.attempt}` : `step-${input.step}`, async (): Promise<StepOutcome> => {
    if (cut && run.task.status === 'blocked') await run.save({ status: 'running', blockedOn: null });
    // Cut by a shutdown — its turn stopped, or refused because the mind was stopping — the step is
    // not over: it must not be journaled (a replay would take the cut, or the refusal's error, for
    // its outcome and fail the task). It ends with the engine's shutdown, unrecorded, and the next
    // holder continues its open turn — the calls that finished are not made again.
    const leftToTheRestart = async (): Promise<never> => {
      await untilShutdown(input.context.signal);
      throw new RunCancelledError(input.context.runId);
    };
    const result = await run.mind.runTaskStep(turn, cut ?? undefined).catch((error: unknown) => (run.stopping() ? leftToTheRestart() : Promise.reject(error)));
    if (result.outcome !== 'complete' && run.stopping()) await leftToTheRestart();
    return {
      outcome: result.outcome,
      error: result.error?.message ?? null,
      errorKind: result.error?.kind ?? null,
      budgetStop: result.budgetStop ?? null,
      requests: { ...state.requests },
      repeat: state.repeat.verdict,
      repeatedCall: state.repeat.call,
      usage: { ...state.usage },
    };
  });
}
