import { describe, expect, it } from 'vitest';
import { adaptiveDelayMs, currentActivity, cycleDelayMs, failureBackoffMs, spontaneousVerdict } from '@/lib/mind/pacing';

const base = { now: 1_000_000, lastUserAt: 1_000_000, turnRunning: false, lastTurnEndedAt: null, spontaneousCapReached: false };

describe('pacing', () => {
  it('names the activity from what the mind is doing', () => {
    expect(currentActivity({ ...base, turnRunning: true })).toBe('working');
    expect(currentActivity({ ...base, lastTurnEndedAt: base.now - 29_999 })).toBe('working');
    expect(currentActivity({ ...base, lastUserAt: base.now - 59_999 })).toBe('engaged');
    expect(currentActivity({ ...base, lastUserAt: base.now - 60_000 })).toBe('foraging');
    expect(currentActivity({ ...base, lastUserAt: base.now - 10 * 60_000 })).toBe('resting');
    expect(currentActivity({ ...base, lastUserAt: base.now - 120_000, spontaneousCapReached: true })).toBe('resting');
    // A running turn outranks everything; a reached cap outranks a turn that just ended.
    expect(currentActivity({ ...base, turnRunning: true, spontaneousCapReached: true })).toBe('working');
    expect(currentActivity({ ...base, lastTurnEndedAt: base.now - 1, spontaneousCapReached: true })).toBe('resting');
  });

  it('waits by activity in adaptive mode and never in continuous mode', () => {
    expect(cycleDelayMs('adaptive', 'working')).toBe(3_000);
    expect(cycleDelayMs('adaptive', 'engaged')).toBe(5_000);
    expect(cycleDelayMs('adaptive', 'foraging')).toBe(30_000);
    expect(cycleDelayMs('adaptive', 'resting')).toBe(270_000);
    expect(adaptiveDelayMs.resting).toBeLessThan(5 * 60_000); // inside the prompt-cache lifetime
    for (const activity of ['working', 'engaged', 'foraging', 'resting'] as const) expect(cycleDelayMs('continuous', activity)).toBe(0);
  });

  it('backs off exponentially with jitter, capped, and honours retry-after', () => {
    expect(failureBackoffMs(1, undefined, () => 0)).toBe(1_000);
    expect(failureBackoffMs(1, undefined, () => 1)).toBe(2_000);
    expect(failureBackoffMs(3, undefined, () => 0.5)).toBe(6_000);
    expect(failureBackoffMs(30, undefined, () => 1)).toBe(300_000);
    expect(failureBackoffMs(1, 42_000, () => 0.5)).toBe(42_000);
    expect(failureBackoffMs(1, 10 * 60_000, () => 0.5)).toBe(300_000);
    expect(failureBackoffMs(1, 0, () => 0.5)).toBe(1_000);
  });
});

describe('spontaneousVerdict', () => {
  const params = { trigger_mode: 'tag' as 'tag' | 'length', trigger_threshold: 10, spontaneous_cap: 2 };
  it('speaks on the tag (or S_loud past the threshold), not past the cap, not while a reply runs', () => {
    expect(spontaneousVerdict(params, { sLoud: '', trigger: false }, 0, false)).toBe('none');
    expect(spontaneousVerdict(params, { sLoud: '', trigger: true }, 0, false)).toBe('started');
    expect(spontaneousVerdict(params, { sLoud: '', trigger: true }, 2, false)).toBe('capped');
    expect(spontaneousVerdict(params, { sLoud: '', trigger: true }, 0, true)).toBe('busy');
    expect(spontaneousVerdict({ ...params, trigger_mode: 'length' as const }, { sLoud: 'a long enough thought', trigger: false }, 0, false)).toBe('started');
  });
});
