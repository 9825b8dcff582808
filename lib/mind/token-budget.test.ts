import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '@/lib/backends/model-backend';
import { contextWindowFor, unknownModelWindow } from '@/lib/backends/model-limits';
import { estimateRequestTokens, estimateTokens, fitNewest, fitPair, fitPairSteadily, historyBudget, TokenCalibration } from '@/lib/mind/token-budget';

const items = (...tokens: number[]) => tokens.map((count, index) => ({ id: index, tokens: count }));

describe('token budgets', () => {
  it('estimates ~4 ASCII characters a token and a token per other character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('日本語')).toBe(3);
  });

  it('images and documents count by their provider formula, not their base64; history gets what is left', () => {
    const base64 = 'A'.repeat(400_000);
    const image = { type: 'image' as const, mediaType: 'image/jpeg' as const, data: base64, tokens: 1_532, label: '/workspace/uploads/photo.jpg' };
    const request = (blocks: ContentBlock[]) => ({ system: [{ text: 'abcd'.repeat(100) }], messages: [{ role: 'user' as const, content: 'hi there', blocks: [...blocks, { type: 'text' as const, text: 'hi there' }] }] });
    const words = estimateRequestTokens(request([]));
    expect(estimateRequestTokens(request([image]))).toBe(words + 1_532);
    const shown = { type: 'tool-result' as const, callId: 'c1', content: 'Here is plot.png', isError: false, images: [image, image] };
    expect(estimateRequestTokens(request([shown]))).toBe(words + estimateTokens('Here is plot.png') + 1 + 3_064);
    const config = { backend: 'openai_compatible' as const, model: 'local-vl', max_tokens: 1_000, endpoint: 'http://x/v1', context_window: 8_192 };
    expect(historyBudget({ config, fixedTokens: estimateRequestTokens(request([image, image])), calibration: 1 })).toBe(historyBudget({ config, fixedTokens: words, calibration: 1 }) - 3_064);
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

describe('fitPairSteadily', () => {
  const entries = (from: number, to: number, tokens = 10) => Array.from({ length: to - from + 1 }, (_, index) => ({ cycle: from + index, tokens, text: `e${from + index}` }));
  const cycles = (items: { cycle: number | null }[]) => items.map((item) => item.cycle);

  it('keeps the window start while everything since it fits, so the prompt only grows at the end', () => {
    let window = { firstFrom: 0, secondFrom: 0 };
    const budget = 200; // 16 entries of 10 (+2 separator) tokens
    const starts: number[] = [];
    for (let cycle = 1; cycle <= 40; cycle++) {
      const fitted = fitPairSteadily(entries(1, cycle), entries(1, cycle, 2), { budget, share: 0.6, maxEntries: 1000, window });
      window = fitted.window;
      starts.push(fitted.kept[0][0]!.cycle!);
      const cost = [...fitted.kept[0], ...fitted.kept[1]].reduce((sum, item) => sum + item.tokens + 2, 0);
      expect(cost).toBeLessThanOrEqual(budget);
      expect(fitted.kept[0].at(-1)!.cycle).toBe(cycle); // the newest entry is always there
    }
    // The start moved in jumps (each cycle adds 16 tokens; a cut frees 50): sliding one entry at
    // a time would have moved it in each of the ~28 cycles after the window first filled.
    const moves = starts.filter((start, index) => index > 0 && start !== starts[index - 1]!).length;
    expect(moves).toBeGreaterThan(0);
    expect(moves).toBeLessThanOrEqual(8);
  });

  it('cuts to the low-water mark at once when the budget or the entry limit is exceeded', () => {
    const over = fitPairSteadily(entries(1, 30), [], { budget: 240, share: 1, maxEntries: 1000, window: { firstFrom: 0, secondFrom: 0 } });
    expect(cycles(over.kept[0])).toEqual(cycles(entries(16, 30))); // 15 × 12 = 180 = 0.75 × 240
    expect(over.window.firstFrom).toBe(16);
    const many = fitPairSteadily(entries(1, 30, 1), [], { budget: 10_000, share: 1, maxEntries: 20, window: { firstFrom: 0, secondFrom: 0 } });
    expect(many.kept[0]).toHaveLength(15);
    const still = fitPairSteadily(entries(1, 31, 1), [], { budget: 10_000, share: 1, maxEntries: 20, window: many.window });
    expect(cycles(still.kept[0])).toEqual(cycles(entries(16, 31, 1)));
  });
});

describe('a prompt with tools', () => {
  it('counts the tool definitions and every block of a step: calls and results take room too', () => {
    const base = { system: [{ text: 'x'.repeat(400) }], messages: [{ role: 'user' as const, content: 'y'.repeat(400) }] };
    const plain = estimateRequestTokens(base);
    const withTools = estimateRequestTokens({ ...base, tools: [{ name: 'bash', description: 'd'.repeat(400), inputSchema: { type: 'object' } }] });
    expect(withTools - plain).toBeGreaterThanOrEqual(100);
    const withStep = estimateRequestTokens({
      ...base,
      messages: [
        ...base.messages,
        { role: 'assistant', content: '', blocks: [{ type: 'tool-call', id: 'a', name: 'bash', input: { command: 'z'.repeat(400) } }] },
        { role: 'user', content: '', blocks: [{ type: 'tool-result', callId: 'a', content: 'r'.repeat(800), isError: false }] },
      ],
    });
    expect(withStep - plain).toBeGreaterThanOrEqual(300);
  });
});
