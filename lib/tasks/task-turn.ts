// What a task gives the Internal Dialog turn that runs one of its steps: the brief the prompt
// carries, the task's own tools (update_plan, finish_task, ask_user, yield_to_user), the tools it
// may use, and the budget hooks around every model call. The turn itself is an ordinary one —
// M&C, S_loud, streaming to the chat, cards — so a task step is the mind at work, not a side loop.
import { z } from 'zod';
import type { BackendRequest } from '@/lib/backends/model-backend';
import type { ModelCallResult } from '@/lib/mind/model-call';
import type { ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { builtinTool, type Tool, type ToolOutcome } from '@/lib/tools/tool-types';
import { planItemSchema, type PlanItem } from '@/lib/store/task-types';

export interface TaskTurn {
  taskId: string;
  traceId: string;
  /** The `<task>` part of the step's prompt. */
  brief: string;
  /** What recall searches memory for on each step. */
  goal: string;
  /** The task's own tools, offered after the others. */
  taskTools: Tool[];
  /** The tools the task may use (its constraints); absent: the session's. The task's own always. */
  allowedTools?: readonly string[];
  /** Before every model call of the step: null to go on, or why the budget stops it. */
  beforeCall(request: BackendRequest): string | null;
  /** After a round of tools: true ends the step there (finish_task, ask_user or yield_to_user was called). */
  endAfterTools(): boolean;
  /** After every model call: what it used. */
  afterCall(result: ModelCallResult): void;
  /** Each change of one of the step's tool calls (a card waiting blocks the task). */
  onCallChanged(call: ToolCallRecord): void;
  /** The task's cancel: stops the step like the Stop button. */
  signal: AbortSignal;
}

/** What the model asked for through the task's own tools during one step. */
export interface StepRequests {
  plan: PlanItem[] | null;
  finish: string | null;
  question: string | null;
  yielded: boolean;
}

export const TASK_TOOL_NAMES = ['update_plan', 'finish_task', 'ask_user', 'yield_to_user'] as const;

export function emptyStepRequests(): StepRequests {
  return { plan: null, finish: null, question: null, yielded: false };
}

const noop = () => '';

const updatePlanArgs = z.object({ steps: z.array(planItemSchema).min(1).max(30) }).strict();
const finishArgs = z.object({ result: z.string().min(1).max(20_000) }).strict();
const askArgs = z.object({ question: z.string().min(1).max(2_000) }).strict();
const yieldArgs = z.object({}).strict();

type Runs = { [K in (typeof TASK_TOOL_NAMES)[number]]: (args: never) => Promise<ToolOutcome> };

/** What each task tool does in one step: writes what the model asked into the step's requests. */
function runsFor(requests: StepRequests, onPlan: (plan: PlanItem[]) => Promise<void>): Runs {
  return {
    update_plan: async (args: z.infer<typeof updatePlanArgs>) => {
      requests.plan = args.steps;
      await onPlan(args.steps);
      return { isError: false, content: `Plan updated: ${args.steps.filter((step) => step.status === 'done').length} of ${args.steps.length} steps done.` };
    },
    finish_task: async (args: z.infer<typeof finishArgs>) => {
      requests.finish = args.result;
      return { isError: false, content: 'The task will complete with this result when this step ends.' };
    },
    ask_user: async (args: z.infer<typeof askArgs>) => {
      requests.question = args.question;
      return { isError: false, content: 'Question sent. The task waits for the answer after this step.' };
    },
    yield_to_user: async () => {
      requests.yielded = true;
      return { isError: false, content: 'The task pauses after this step until the user resumes it.' };
    },
  };
}

const unbound = async (): Promise<ToolOutcome> => {
  throw new Error('a task tool runs only bound to a step');
};

// Built once: their JSON Schemas are derived from zod, which is not free on every step.
const definitions: Tool[] = [
  builtinTool({
    name: 'update_plan',
    traits: ['read_only'],
    description: 'Replace the task plan: every step with its status (pending, in_progress, done, skipped). Call it when you make the plan and whenever a step changes.',
    args: updatePlanArgs,
    describeCall: (args) => `${args.steps.length} steps`,
    run: unbound,
  }),
  builtinTool({
    name: 'finish_task',
    traits: ['read_only'],
    description: 'The goal is met: give the result the user gets. The task completes when this step ends.',
    args: finishArgs,
    describeCall: (args) => args.result.slice(0, 200),
    run: unbound,
  }),
  builtinTool({
    name: 'ask_user',
    traits: ['read_only'],
    description: 'You need something only the user can give (a choice, a fact, a permission): ask it. The task waits for their answer.',
    args: askArgs,
    describeCall: (args) => args.question.slice(0, 200),
    run: unbound,
  }),
  builtinTool({ name: 'yield_to_user',  traits: ['read_only'],description: 'Pause the task and hand the conversation back to the user until they resume it.', args: yieldArgs, describeCall: noop, run: unbound }),
] as Tool[];

/** The task's tools for one step, writing what the model asked into `requests`; a new plan is shown at once through `onPlan`. */
export function taskTools(requests: StepRequests, onPlan: (plan: PlanItem[]) => Promise<void> = async () => undefined): Tool[] {
  const runs = runsFor(requests, onPlan);
  return definitions.map((tool) => ({ ...tool, run: runs[tool.definition.name as keyof Runs] as Tool['run'] }));
}
