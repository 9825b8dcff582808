// `delegate` (issue 34, seed 001's crew): a task hands part of its work to a specialist — another
// persona its graph names — as a child task in a session of that persona's, with a budget carved
// from what the parent has left; the call waits for the child and its result is the tool's
// result. What the child spends is added to the parent's step, so the tree never spends more than
// the root was given. The app's side (sessions, tasks, waiting) comes through DelegationHost.
import { z } from 'zod';
import type { TaskRecord } from '@/lib/store/tasks-repository';
import { sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import type { TaskConstraints, TaskUsage } from '@/lib/store/task-types';
import { builtinTool, errorOutcome, type Tool } from '@/lib/tools/tool-types';
import { carveBudget, checkDelegation, type ChainLink } from './delegation-policy';

export interface DelegationHost {
  /** The personas the task's session may delegate to (its graph's `agent.delegate` nodes). */
  specialistsOf(sessionId: string): Promise<string[]>;
  /** The tasks from the root down to this one, with each one's persona. */
  chain(taskId: string): Promise<ChainLink[]>;
  /** A child task for the specialist, in a new session of its persona (linked to the parent's). */
  startChild(input: { parent: TaskRecord; specialist: string; goal: string; context: string | null; constraints: TaskConstraints }): Promise<TaskRecord>;
  /** Resolves when the child ends (completed, failed or cancelled); a cancel of the parent cancels it. */
  waitForEnd(childTaskId: string, signal: AbortSignal): Promise<TaskRecord>;
}

export interface DelegationStep {
  host: DelegationHost;
  parent: TaskRecord;
  /** The step's usage so far: the child's is added to it. */
  usage: TaskUsage;
  stepsUsed: number;
  elapsedS: () => number;
  signal: AbortSignal;
}

const delegateArgs = z.strictObject({
  specialist: z.string().min(1).max(64).describe('The persona to hand the work to (one of your specialists)'),
  task: z.string().min(1).max(4_000).describe('What the specialist should do, as a goal it can finish on its own'),
  context: z.string().max(20_000).optional().describe('What it needs to know that the goal does not say'),
  limits: z
    .strictObject({
      max_steps: z.number().int().min(1).max(200).optional(),
      max_tokens: z.number().int().min(100).optional(),
      max_cost_usd: z.number().positive().optional(),
      timeout_s: z.number().int().min(1).optional(),
      tools: z.array(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/)).max(200).optional().describe('Only these of its tools (never more than your own task may use)'),
    })
    .optional()
    .describe("At most this much of your own budget (never more than you have left)"),
});

export function delegateTool(step: DelegationStep): Tool {
  return builtinTool({
    name: 'delegate',
    traits: ['delegates'],
    description: 'Hand part of this task to one of your specialists: it works on its own with its own tools and skills, within a share of your budget, and its result comes back as this call’s result.',
    args: delegateArgs,
    describeCall: (args) => `${args.specialist}: ${args.task.slice(0, 160)}`,
    run: async (args) => {
      const [specialists, chain] = await Promise.all([step.host.specialistsOf(step.parent.sessionId), step.host.chain(step.parent.id)]);
      const allowed = checkDelegation({ chain, specialist: args.specialist, specialists });
      if (!allowed.ok) return errorOutcome(`Not delegated: ${allowed.reason}`);
      const budget = carveBudget({ parent: step.parent.constraints, usage: step.usage, stepsUsed: step.stepsUsed, elapsedS: step.elapsedS(), asked: args.limits ?? {} });
      if (!budget.ok) return errorOutcome(`Not delegated: ${budget.reason}`);
      const child = await step.host.startChild({ parent: step.parent, specialist: args.specialist, goal: args.task, context: args.context ?? null, constraints: budget.value });
      const ended = await step.host.waitForEnd(child.id, step.signal);
      step.usage.inputTokens += ended.usage.inputTokens;
      step.usage.outputTokens += ended.usage.outputTokens;
      step.usage.costUsd += ended.usage.costUsd;
      step.usage.costUnknown ||= ended.usage.costUnknown;
      // What the specialist read from outside reaches this session with its words (ARCHITECTURE §20).
      const read = await sessionUntrustedSource(ended.sessionId);
      const untrusted = read ? { untrusted: { kind: 'derived' as const, label: `the work of ${args.specialist}, which read ${read}`.slice(0, 500) } } : {};
      if (ended.status === 'completed') return { isError: false, content: `${args.specialist} finished (task ${ended.id}, ${ended.stepsUsed} steps):\n${ended.result ?? ''}`, ...untrusted };
      return { ...errorOutcome(`${args.specialist} did not finish (task ${ended.id} ${ended.status}): ${ended.error ?? 'no reason given'}`), ...untrusted };
    },
  }) as Tool;
}
