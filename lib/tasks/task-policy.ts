// The task's limits, checked before anything is spent: a model call is allowed only when its
// worst case (the prompt as estimated plus max_tokens of answer) still fits every cap, so a cap
// is never exceeded. Each limit ends the task with its own reason. Pure: the loop passes the time.
import { estimateCost } from '@/lib/backends/pricing';
import type { TaskConstraints, TaskUsage } from '@/lib/store/task-types';

export function stepsExhausted(stepsUsed: number, constraints: TaskConstraints): string | null {
  return stepsUsed >= constraints.max_steps ? `max steps reached: ${stepsUsed} of ${constraints.max_steps}` : null;
}

export function timedOut(startedAt: number, now: number, constraints: TaskConstraints): string | null {
  const elapsed = (now - startedAt) / 1000;
  return elapsed >= constraints.timeout_s ? `timeout: ${Math.floor(elapsed)} s of ${constraints.timeout_s} s` : null;
}

/** Null when the call may go; else why it may not (the task then ends as budget exhausted). */
export function callBudgetStop(input: {
  usage: TaskUsage;
  constraints: TaskConstraints;
  model: string;
  promptTokens: number;
  maxTokens: number;
}): string | null {
  const { usage, constraints } = input;
  const worstTokens = input.promptTokens + input.maxTokens;
  if (constraints.max_tokens !== undefined) {
    const used = usage.inputTokens + usage.outputTokens;
    if (used + worstTokens > constraints.max_tokens) {
      return `token budget: ${used.toLocaleString('en-US')} used, the next call could take ${worstTokens.toLocaleString('en-US')} more, the cap is ${constraints.max_tokens.toLocaleString('en-US')}`;
    }
  }
  if (constraints.max_cost_usd !== undefined) {
    const worst = estimateCost(input.model, { inputTokens: input.promptTokens, outputTokens: input.maxTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
    if (worst === 'unknown') return `cost budget: ${input.model} has no known price, so a cost cap cannot be kept`;
    if (usage.costUsd + worst > constraints.max_cost_usd) {
      return `cost budget: $${usage.costUsd.toFixed(4)} used, the next call could cost $${worst.toFixed(4)}, the cap is $${constraints.max_cost_usd}`;
    }
  }
  return null;
}

export type RepeatVerdict = 'ok' | 'warn' | 'fail';

/**
 * Same tool, same arguments, same result three times: the model is told once; the next time it
 * happens the task fails with that reason.
 */
export class RepeatDetector {
  private readonly counts = new Map<string, number>();
  private warned = false;

  record(call: { name: string; argsHash: string; result: string | null }): RepeatVerdict {
    const key = `${call.name}\u0000${call.argsHash}\u0000${call.result ?? ''}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count < 3) return 'ok';
    if (!this.warned) {
      this.warned = true;
      return 'warn';
    }
    return 'fail';
  }
}
