import { describe, expect, it } from 'vitest';
import { callBudgetStop, RepeatDetector, stepsExhausted, timedOut } from './task-policy';
import { taskConstraintsSchema, type TaskUsage } from '@/lib/store/task-types';

const constraints = (extra: object = {}) => taskConstraintsSchema.parse(extra);
const usage = (extra: Partial<TaskUsage> = {}): TaskUsage => ({ inputTokens: 0, outputTokens: 0, costUsd: 0, costUnknown: false, ...extra });

describe('task limits', () => {
  it('defaults: 20 steps, 30 minutes, no token or cost cap', () => {
    expect(constraints()).toEqual({ max_steps: 20, timeout_s: 1800 });
    expect(stepsExhausted(19, constraints())).toBeNull();
    expect(stepsExhausted(20, constraints())).toBe('max steps reached: 20 of 20');
    expect(timedOut(0, 1_799_000, constraints())).toBeNull();
    expect(timedOut(0, 1_800_000, constraints())).toBe('timeout: 1800 s of 1800 s');
  });

  it('a call goes only when its worst case fits the token cap', () => {
    const capped = constraints({ max_tokens: 10_000 });
    expect(callBudgetStop({ usage: usage({ inputTokens: 5_000, outputTokens: 1_000 }), constraints: capped, model: 'x', promptTokens: 2_000, maxTokens: 2_000 })).toBeNull();
    expect(callBudgetStop({ usage: usage({ inputTokens: 5_000, outputTokens: 1_000 }), constraints: capped, model: 'x', promptTokens: 2_000, maxTokens: 2_001 })).toBe(
      'token budget: 6,000 used, the next call could take 4,001 more, the cap is 10,000',
    );
  });

  it('the cost cap uses the model price of the worst case; an unpriced model cannot keep one', () => {
    const capped = constraints({ max_cost_usd: 0.05 });
    // claude-sonnet-5-5: $2 in / $10 out per million (lib/backends/pricing.ts): 5,000 in + 1,000 out = $0.02.
    expect(callBudgetStop({ usage: usage({ costUsd: 0.03 }), constraints: capped, model: 'claude-sonnet-5-5', promptTokens: 5_000, maxTokens: 1_000 })).toBeNull();
    expect(callBudgetStop({ usage: usage({ costUsd: 0.035 }), constraints: capped, model: 'claude-sonnet-5-5', promptTokens: 5_000, maxTokens: 1_000 })).toBe('cost budget: $0.0350 used, the next call could cost $0.0200, the cap is $0.05');
    expect(callBudgetStop({ usage: usage(), constraints: capped, model: 'llama-local', promptTokens: 10, maxTokens: 10 })).toMatch(/no known price/);
  });

  it('the same call with the same result: fine twice, told on the third, failed after', () => {
    const detector = new RepeatDetector();
    const call = { name: 'bash', argsHash: 'h1', result: 'same' };
    expect([detector.record(call), detector.record(call), detector.record(call)]).toEqual(['ok', 'ok', 'warn']);
    expect(detector.record({ ...call, result: 'different' })).toBe('ok');
    expect(detector.record(call)).toBe('fail');
  });
});
