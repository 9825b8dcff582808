import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextWindowFor, unknownModelWindow } from '@/lib/backends/model-limits';
import { estimateTokens, fitNewest, fitPair, historyBudget, TokenCalibration } from './token-budget';

const items = (...tokens: number[]) => tokens.map((count, index) => ({ id: index, tokens: count }));

describe('token budgets', () => {
  it('estimates ~4 ASCII characters a token and a token per other character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('日本語')).toBe(3);
  });

  it('calibrates per model toward what the backend reports (20% more converges to 1.2)', () => {
    const calibration = new TokenCalibration();
    expect(calibration.factor('m')).toBe(1);
    for (let call = 0; call < 20; call++) calibration.observe('m', 1_000, 1_200);
    expect(calibration.factor('m')).toBeCloseTo(1.2, 5);
    expect(calibration.factor('other')).toBe(1);
    calibration.observe('tiny', 10, 500); // too small a sample to trust
    expect(calibration.factor('tiny')).toBe(1);
    calibration.observe('wild', 1_000, 1_000_000);
    expect(calibration.factor('wild')).toBe(4);
  });

  it('a higher calibration factor leaves less room for history', () => {
    const config = { backend: 'openai_compatible' as const, model: 'local', max_tokens: 1_000, endpoint: 'http://x/v1', context_window: 10_000 };
    const plain = historyBudget({ config, fixedTokens: 2_000, calibration: 1 });
    const calibrated = historyBudget({ config, fixedTokens: 2_000, calibration: 1.2 });
    expect(plain).toBe(10_000 - 1_000 - 500 - 2_000);
    expect(calibrated).toBe(Math.floor(8_500 / 1.2) - 2_000);
    expect(historyBudget({ config, fixedTokens: 50_000, calibration: 1 })).toBe(0);
  });

  it('keeps the newest entries that fit, in order', () => {
    expect(fitNewest(items(5, 5, 5), 14).map((item) => item.id)).toEqual([1, 2]);
    expect(fitNewest(items(5, 100, 5), 14).map((item) => item.id)).toEqual([2]);
    expect(fitNewest(items(5), 0)).toEqual([]);
  });

  it('never exceeds the budget, and a pair shares it (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50)), fc.array(fc.nat(50)), fc.nat(500), fc.double({ min: 0, max: 1, noNaN: true }), (a, b, budget, share) => {
        const cost = (list: { tokens: number }[]) => list.reduce((sum, item) => sum + item.tokens + 2, 0);
        const [first, second] = fitPair(items(...a), items(...b), budget, share);
        expect(cost(first) + cost(second)).toBeLessThanOrEqual(budget);
        expect(cost(fitNewest(items(...a), budget))).toBeLessThanOrEqual(budget);
      }),
    );
  });

  it('knows the windows of common models; the setting overrides', () => {
    expect(contextWindowFor({ model: 'claude-haiku-4-5' })).toBe(200_000);
    expect(contextWindowFor({ model: 'library/qwen3:8b' })).toBe(32_768);
    expect(contextWindowFor({ model: 'something-new' })).toBe(unknownModelWindow);
    expect(contextWindowFor({ model: 'claude-haiku-4-5', context_window: 50_000 })).toBe(50_000);
  });
});
