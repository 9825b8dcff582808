// The allowance guard's arithmetic (issue 48): a call's worst case, what it really cost, the time
// until the allowance's next local day (23 and 25 hours across DST), the refusal in words.
import { describe, expect, it } from 'vitest';
import { actualCost, describeRefusal, untilNextDay, worstCase } from './allowance-guard';

describe('the allowance guard', () => {
  it('prices the worst case from the catalog, and counts tokens for a model without a price', () => {
    const request = { model: 'claude-haiku-4-5', maxTokens: 1_000, system: [{ text: 'x'.repeat(4_000) }], messages: [{ role: 'user' as const, content: 'hello' }] };
    const worst = worstCase(request);
    expect(worst.tokens).toBeGreaterThan(2_000);
    expect(worst.usd).toBeGreaterThan(0);
    expect(worstCase({ ...request, model: 'llama3.2:3b' })).toMatchObject({ usd: 0, tokens: worst.tokens });
    expect(actualCost({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 1, costUsd: 0.001 })).toEqual({ usd: 0.001, tokens: 116 });
    expect(actualCost(null)).toEqual({ usd: 0, tokens: 0 });
  });

  it('knows when the local day ends, DST included', () => {
    const hour = 60 * 60 * 1000;
    // Madrid, 25 October 2026 (clocks back): from 00:00 local the day lasts 25 hours.
    expect(Math.round(untilNextDay(new Date('2026-10-24T22:00:00Z'), 'Europe/Madrid') / hour)).toBe(25);
    // New York, 8 March 2026 (clocks forward): 23 hours.
    expect(Math.round(untilNextDay(new Date('2026-03-08T05:00:00Z'), 'America/New_York') / hour)).toBe(23);
    expect(Math.round(untilNextDay(new Date('2026-11-27T23:30:00Z'), 'UTC') / 60_000)).toBe(30);
  });

  it('says whose allowance, what is gone and when it renews', () => {
    const allowance = { id: 'p', scope: 'persona' as const, scopeId: 'iris', usdPerDay: 5, tokensPerDay: null, timeZone: 'Europe/Madrid' };
    expect(describeRefusal({ allowance, day: '2026-11-27', unit: 'usd', spent: 4.9, reserved: 0.05, limit: 5 }, { usd: 0.12, tokens: 9_000 })).toBe(
      "today's allowance of $5.00 for the persona iris cannot take this call (up to $0.12; $4.90 spent, $0.05 in calls running); it renews at midnight Europe/Madrid",
    );
  });
});
