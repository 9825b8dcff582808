// Issue 34, requirement 2 (the pure part): a specialist must be the agent's own, the depth is
// limited, no persona twice in a chain; a child's budget is never more than its parent has left —
// checked as a property over random limits, usage and asks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/test/support/property';
import { carveBudget, checkDelegation, narrowTools } from './delegation-policy';

const usage = (tokens: number, costUsd: number, costUnknown = false) => ({ inputTokens: Math.floor(tokens / 2), outputTokens: tokens - Math.floor(tokens / 2), costUsd, costUnknown });

describe('who may be asked', () => {
  const root = { taskId: 't1', persona: 'general-assistant' };
  it('only a specialist the graph names, down to the depth limit, never one already in the chain', () => {
    expect(checkDelegation({ chain: [root], specialist: 'reviewer', specialists: ['reviewer', 'researcher'] })).toEqual({ ok: true, value: { depth: 1 } });
    expect(checkDelegation({ chain: [root], specialist: 'hacker', specialists: ['reviewer'] })).toMatchObject({ ok: false, reason: expect.stringContaining('not one of this agent') });
    expect(checkDelegation({ chain: [root, { taskId: 't2', persona: 'researcher' }], specialist: 'reviewer', specialists: ['reviewer'] })).toEqual({ ok: true, value: { depth: 2 } });
    expect(checkDelegation({ chain: [root, { taskId: 't2', persona: 'researcher' }, { taskId: 't3', persona: 'reviewer' }], specialist: 'writer', specialists: ['writer'] })).toMatchObject({ ok: false, reason: expect.stringContaining('limited to 2 levels') });
    expect(checkDelegation({ chain: [root, { taskId: 't2', persona: 'reviewer' }], specialist: 'general-assistant', specialists: ['general-assistant'] })).toMatchObject({ ok: false, reason: expect.stringContaining('already working on this (task t1)') });
  });
});

describe('a child’s budget', () => {
  const parent = { max_steps: 20, timeout_s: 1800, max_tokens: 10_000, max_cost_usd: 0.5 };
  it('what was asked, within what is left; a limit the parent has is always passed on', () => {
    expect(carveBudget({ parent, usage: usage(4_000, 0.2), stepsUsed: 5, elapsedS: 100, asked: { max_tokens: 20_000 } })).toEqual({ ok: true, value: { max_steps: 15, timeout_s: 1700, max_tokens: 6_000, max_cost_usd: expect.closeTo(0.3, 10) } });
    expect(carveBudget({ parent, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: { max_steps: 3, max_cost_usd: 0.1 } })).toEqual({ ok: true, value: { max_steps: 3, timeout_s: 1800, max_tokens: 10_000, max_cost_usd: 0.1 } });
    expect(carveBudget({ parent: { max_steps: 20, timeout_s: 60 }, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: {} })).toEqual({ ok: true, value: { max_steps: 20, timeout_s: 60 } });
  });

  it('refused when nothing useful is left, or the cost cannot be known', () => {
    expect(carveBudget({ parent, usage: usage(9_950, 0.1), stepsUsed: 1, elapsedS: 1, asked: {} })).toMatchObject({ ok: false, reason: "only 50 tokens are left of this task's 10000" });
    expect(carveBudget({ parent, usage: usage(100, 0.5), stepsUsed: 1, elapsedS: 1, asked: {} })).toMatchObject({ ok: false, reason: expect.stringContaining('nothing is left') });
    expect(carveBudget({ parent, usage: usage(100, 0.1, true), stepsUsed: 1, elapsedS: 1, asked: {} })).toMatchObject({ ok: false, reason: expect.stringContaining('without a known price') });
    expect(carveBudget({ parent, usage: usage(100, 0.1), stepsUsed: 20, elapsedS: 1, asked: {} })).toMatchObject({ ok: false, reason: 'no steps are left for a specialist' });
  });

  it('never more than the parent has left (property)', () => {
    fc.assert(
      fc.property(
        fc.record({ max_steps: fc.integer({ min: 1, max: 200 }), timeout_s: fc.integer({ min: 1, max: 100_000 }), max_tokens: fc.option(fc.integer({ min: 100, max: 1_000_000 }), { nil: undefined }), max_cost_usd: fc.option(fc.double({ min: 0.01, max: 100, noNaN: true }), { nil: undefined }) }),
        fc.record({ tokens: fc.integer({ min: 0, max: 1_000_000 }), cost: fc.double({ min: 0, max: 100, noNaN: true }), steps: fc.integer({ min: 0, max: 200 }), elapsed: fc.integer({ min: 0, max: 100_000 }) }),
        fc.record({ max_steps: fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }), max_tokens: fc.option(fc.integer({ min: 1, max: 5_000_000 }), { nil: undefined }), max_cost_usd: fc.option(fc.double({ min: 0.001, max: 500, noNaN: true }), { nil: undefined }) }),
        (limits, used, asked) => {
          const parentLimits = Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) as typeof parent;
          const verdict = carveBudget({ parent: parentLimits, usage: usage(used.tokens, used.cost), stepsUsed: used.steps, elapsedS: used.elapsed, asked });
          if (!verdict.ok) return;
          const child = verdict.value;
          expect(child.max_steps).toBeLessThanOrEqual(parentLimits.max_steps - used.steps);
          expect(child.timeout_s).toBeLessThanOrEqual(parentLimits.timeout_s - used.elapsed);
          if (parentLimits.max_tokens !== undefined) expect(child.max_tokens!).toBeLessThanOrEqual(parentLimits.max_tokens - used.tokens);
          if (parentLimits.max_cost_usd !== undefined) expect(child.max_cost_usd!).toBeLessThanOrEqual(parentLimits.max_cost_usd - used.cost + 1e-12);
        },
      ),
      propertyRuns(500),
    );
  });
});

describe('a child’s tools (issue 41 §3)', () => {
  const budget = { max_steps: 20, timeout_s: 1800 };
  it('the parent’s limit passes down, narrowed by what was asked, never widened', () => {
    expect(carveBudget({ parent: { ...budget, tools: ['delegate'] }, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: {} })).toMatchObject({ ok: true, value: { tools: ['delegate'] } });
    expect(carveBudget({ parent: { ...budget, tools: ['read_file'] }, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: { tools: ['read_file', 'write_file'] } })).toMatchObject({ ok: true, value: { tools: ['read_file'] } });
    expect(carveBudget({ parent: budget, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: { tools: ['read_file'] } })).toMatchObject({ ok: true, value: { tools: ['read_file'] } });
    expect(carveBudget({ parent: budget, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: {} })).toEqual({ ok: true, value: budget });
  });

  it('no descendant ever may use a tool one of its ancestors excludes (property over random limit trees)', () => {
    const names = ['read_file', 'write_file', 'bash', 'python', 'http_get', 'delegate', 'note'];
    const limit = fc.option(fc.subarray(names), { nil: undefined });
    fc.assert(
      fc.property(limit, fc.array(limit, { minLength: 1, maxLength: 5 }), fc.constantFrom(...names), (rootTools, asks, tool) => {
        // A chain root → child → grandchild …: each asks for its own tools (or none) when it delegates.
        let constraints: { max_steps: number; timeout_s: number; tools?: string[] } = { ...budget, ...(rootTools && { tools: rootTools }) };
        const ancestors = [constraints];
        for (const asked of asks) {
          const verdict = carveBudget({ parent: constraints, usage: usage(0, 0), stepsUsed: 0, elapsedS: 0, asked: asked ? { tools: asked } : {} });
          if (!verdict.ok) return;
          constraints = verdict.value;
          const mayUse = (limits: typeof constraints) => limits.tools === undefined || limits.tools.includes(tool);
          if (mayUse(constraints)) for (const ancestor of ancestors) expect(mayUse(ancestor)).toBe(true);
          ancestors.push(constraints);
        }
        expect(narrowTools(undefined, undefined)).toBeUndefined();
      }),
      propertyRuns(500),
    );
  });
});
