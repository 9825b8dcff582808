// What an idle conversation costs a day (issue 74 §7): from the rest rules themselves (rest.ts) and
// what one Subconscious cycle costs on the models in use — the median of its last cycles, or, before
// there are any, the size `npm run bench:idle` measures on a small persona. Pure, like rest.ts: the
// home page says it, the benchmark checks it against the simulated day.
import type { SessionParams } from '@/lib/config/model-config';
import { cycleDelayMs } from './pacing';
import { deepeningPauseMs, restLimits } from './rest';

export interface CycleSize {
  inputTokens: number;
  outputTokens: number;
  /** How long one call takes (continuous pacing starts the next as soon as it ends). */
  durationMs: number;
}

/**
 * One idle cycle as `npm run bench:idle` measures it (a small persona, an empty conversation; 50
 * tokens/s + 400 ms): 2,560 tokens and $0.0029 at Haiku 4.5's price for its two cycles, 63,552
 * continuous calls a day.
 */
export const benchIdleCycle: CycleSize = { inputTokens: 1_238, outputTokens: 42, durationMs: 1_360 };

export interface IdleDay {
  cycles: number;
  inputTokens: number;
  outputTokens: number;
}

export interface IdleCost {
  first: IdleDay;
  later: IdleDay;
  /** Continuous pacing: each cycle's window grows with its thoughts, so the real figure is higher. */
  atLeast: boolean;
}

const DAY = 24 * 3600_000;

/** The Subconscious cycles of a conversation nobody speaks to, its first day and each later one. */
export function idleCycles(params: Pick<SessionParams, 'pacing' | 'idle_thoughts' | 'rest_ceiling_minutes' | 'dormant_after_days'>, cycleMs: number): { first: number; later: number } {
  if (params.pacing === 'continuous') {
    const perDay = Math.floor(DAY / Math.max(cycleMs, 100));
    return { first: perDay, later: perDay };
  }
  // The cycle that read the news (the session's start), then its own thoughts on the deepening
  // schedule until `idle_thoughts` are spent — and nothing after, until something happens.
  const limits = restLimits(params);
  const activityMs = cycleDelayMs('adaptive', 'resting');
  const times = [0];
  for (let cycles = 1; cycles < limits.idleThoughts && times.at(-1)! < 2 * DAY; cycles++) times.push(times.at(-1)! + deepeningPauseMs(cycles, activityMs, limits.ceilingMs));
  const within = (from: number, to: number) => times.filter((at) => at >= from && at < to).length;
  return { first: within(0, DAY), later: limits.dormantAfterMs <= DAY ? 0 : within(DAY, 2 * DAY) };
}

/** The idle day's tokens at `cycle`'s size. */
export function idleCost(params: Parameters<typeof idleCycles>[0], cycle: CycleSize = benchIdleCycle): IdleCost {
  const { first, later } = idleCycles(params, cycle.durationMs);
  const day = (cycles: number): IdleDay => ({ cycles, inputTokens: cycles * cycle.inputTokens, outputTokens: cycles * cycle.outputTokens });
  return { first: day(first), later: day(later), atLeast: params.pacing === 'continuous' };
}

/** The median cycle of the ones given (newest first), or the benchmark's before there are enough. */
export function typicalCycle(calls: readonly CycleSize[]): CycleSize {
  if (calls.length < 3) return benchIdleCycle;
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  return { inputTokens: median(calls.map((call) => call.inputTokens)), outputTokens: median(calls.map((call) => call.outputTokens)), durationMs: median(calls.map((call) => call.durationMs)) };
}
