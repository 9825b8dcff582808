// Whether a task may hand work to a specialist, and with what budget (issue 34, seed 001's crew).
// Pure: the delegate tool reads the chain of tasks above the caller and the parent's limits and
// usage, and asks here. A child's budget is carved out of what its parent has left — tokens, cost,
// steps, time — so a tree of tasks never spends more than its root was given; the depth is limited
// (default 2) and a persona never appears twice in one chain (no cycles, not even A → B → A).
// Every limit a parent has is a ceiling for its whole subtree, here and only here: the numbers
// are carved, and the tool limit is passed down (narrowed further if the model asks), so a child's
// tools are its parent's limit intersected with its specialist's graph (issue 41 §3).
import type { TaskConstraints, TaskUsage } from '@/lib/store/task-types';

export const DEFAULT_DELEGATION_DEPTH = 2;

/** One task of the chain, from the root down to the one that delegates. */
export interface ChainLink {
  taskId: string;
  persona: string;
}

export type Verdict<T> = { ok: true; value: T } | { ok: false; reason: string };

export function checkDelegation(input: { chain: readonly ChainLink[]; specialist: string; specialists: readonly string[]; maxDepth?: number }): Verdict<{ depth: number }> {
  const maxDepth = input.maxDepth ?? DEFAULT_DELEGATION_DEPTH;
  if (!input.specialists.includes(input.specialist)) {
    return { ok: false, reason: `${input.specialist} is not one of this agent's specialists (${input.specialists.join(', ') || 'none'}): its graph names them` };
  }
  // The chain's length is the depth of the caller: the root task is depth 0, its child 1.
  const depth = input.chain.length;
  if (depth > maxDepth) return { ok: false, reason: `delegation is limited to ${maxDepth} levels: this task is already ${depth - 1} deep` };
  const seen = input.chain.find((link) => link.persona === input.specialist);
  if (seen) return { ok: false, reason: `${input.specialist} is already working on this (task ${seen.taskId}): a specialist is not asked again down its own chain` };
  return { ok: true, value: { depth } };
}

/** What the parent still may spend: its limits minus what it (and the children it already paid for) used. */
export function remaining(constraints: TaskConstraints, usage: TaskUsage, stepsUsed: number, elapsedS: number) {
  return {
    tokens: constraints.max_tokens === undefined ? undefined : constraints.max_tokens - usage.inputTokens - usage.outputTokens,
    costUsd: constraints.max_cost_usd === undefined ? undefined : constraints.max_cost_usd - usage.costUsd,
    steps: constraints.max_steps - stepsUsed,
    timeoutS: constraints.timeout_s - elapsedS,
  };
}

/** The tools a child may use: the parent's limit, narrowed by what was asked; absent only when neither limits them. */
export function narrowTools(parent: readonly string[] | undefined, asked: readonly string[] | undefined): string[] | undefined {
  if (asked === undefined) return parent && [...parent];
  if (parent === undefined) return [...new Set(asked)];
  return [...new Set(asked)].filter((name) => parent.includes(name));
}

const smaller = (asked: number | undefined, left: number | undefined) => (asked === undefined ? left : left === undefined ? asked : Math.min(asked, left));

/**
 * The child's limits: what was asked, never more than the parent has left (a limit the parent has
 * is always given to the child, even when the model did not ask for one). Refused when nothing
 * useful is left.
 */
export function carveBudget(input: {
  parent: TaskConstraints;
  usage: TaskUsage;
  stepsUsed: number;
  elapsedS: number;
  asked: { max_steps?: number; max_tokens?: number; max_cost_usd?: number; timeout_s?: number; tools?: readonly string[] };
}): Verdict<TaskConstraints> {
  const left = remaining(input.parent, input.usage, input.stepsUsed, input.elapsedS);
  if (input.usage.costUnknown && input.parent.max_cost_usd !== undefined) return { ok: false, reason: 'this task used a model without a known price: its cost cap cannot be shared with a specialist' };
  if (left.tokens !== undefined && left.tokens < 100) return { ok: false, reason: `only ${Math.max(0, left.tokens)} tokens are left of this task's ${input.parent.max_tokens}` };
  if (left.costUsd !== undefined && left.costUsd <= 0) return { ok: false, reason: `nothing is left of this task's $${input.parent.max_cost_usd} budget` };
  if (left.steps < 1) return { ok: false, reason: 'no steps are left for a specialist' };
  if (left.timeoutS < 1) return { ok: false, reason: 'no time is left for a specialist' };
  const tokens = smaller(input.asked.max_tokens, left.tokens);
  const cost = smaller(input.asked.max_cost_usd, left.costUsd);
  const tools = narrowTools(input.parent.tools, input.asked.tools);
  return {
    ok: true,
    value: {
      max_steps: Math.max(1, Math.min(input.asked.max_steps ?? left.steps, left.steps)),
      timeout_s: Math.max(1, Math.floor(Math.min(input.asked.timeout_s ?? left.timeoutS, left.timeoutS))),
      ...(tokens !== undefined && { max_tokens: Math.max(100, tokens) }),
      ...(cost !== undefined && { max_cost_usd: cost }),
      ...(tools !== undefined && { tools }),
    },
  };
}
