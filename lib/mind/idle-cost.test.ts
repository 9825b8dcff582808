// The idle day from the rest rules: the default rests after two thoughts and costs nothing after
// its first day; more idle thoughts follow the deepening schedule (270 s, doubling, to the ceiling);
// the seed's continuous loop thinks all day.
import { describe, expect, it } from 'vitest';
import { benchIdleCycle, idleCost, idleCycles, typicalCycle } from './idle-cost';

describe('what an idle conversation costs a day', () => {
  it('default rest: two cycles on its first day, none after', () => {
    expect(idleCycles({ pacing: 'adaptive' }, 3_000)).toEqual({ first: 2, later: 0 });
    const cost = idleCost({ pacing: 'adaptive' });
    expect(cost.first).toEqual({ cycles: 2, inputTokens: 2 * benchIdleCycle.inputTokens, outputTokens: 2 * benchIdleCycle.outputTokens });
    expect(cost.later.cycles).toBe(0);
    expect(cost.atLeast).toBe(false);
  });

  it('idle thoughts unlimited: the deepening schedule to its ceiling, all day, every day', () => {
    // 270 s, 270, 540, 1080 … to 6 h: 0, 4.5 min, 9, 18, 36 min, 1.2 h, 2.4 h, 4.8 h, 9.6 h, 15.6 h, 21.6 h → 11 the first day; 4 a day after.
    expect(idleCycles({ pacing: 'adaptive', idle_thoughts: 100_000 }, 3_000)).toEqual({ first: 11, later: 4 });
    // Capped at 5 minutes: about one every 5 minutes.
    const capped = idleCycles({ pacing: 'adaptive', idle_thoughts: 100_000, rest_ceiling_minutes: 5 }, 3_000);
    expect(capped.later).toBe(288);
    expect(capped.first).toBeGreaterThan(285);
  });

  it('none at all with no idle thoughts; continuous pacing: one call after another, at least', () => {
    expect(idleCycles({ pacing: 'adaptive', idle_thoughts: 0 }, 3_000)).toEqual({ first: 1, later: 0 });
    expect(idleCycles({ pacing: 'continuous' }, 1_440)).toEqual({ first: 60_000, later: 60_000 });
    expect(idleCost({ pacing: 'continuous' }).atLeast).toBe(true);
  });

  it('the cycle size is the median of the last ones, or the benchmark’s before there are three', () => {
    expect(typicalCycle([])).toEqual(benchIdleCycle);
    expect(typicalCycle([{ inputTokens: 900, outputTokens: 90, durationMs: 2_000 }, { inputTokens: 5_000, outputTokens: 400, durationMs: 9_000 }, { inputTokens: 1_000, outputTokens: 100, durationMs: 2_500 }])).toEqual({
      inputTokens: 1_000,
      outputTokens: 100,
      durationMs: 2_500,
    });
  });
});
