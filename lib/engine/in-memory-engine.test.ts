import { describe, expect, it } from 'vitest';
import { realClock } from '@/lib/clock/clock';
import { RunCancelledError } from './execution-engine';
import { InMemoryEngine } from './in-memory-engine';

describe('InMemoryEngine', () => {
  it('start is idempotent per run id; a step name runs once per run', async () => {
    const engine = new InMemoryEngine(realClock);
    let runs = 0;
    let effects = 0;
    const workflow = async (context: Parameters<Parameters<InMemoryEngine['start']>[1]>[0], input: number) => {
      runs++;
      const first = await context.step('effect', async () => ++effects);
      const again = await context.step('effect', async () => ++effects);
      return input + first + again;
    };
    const [a, b] = await Promise.all([engine.start('run-1', workflow, 10), engine.start('run-1', workflow, 10)]);
    expect([a, b, runs, effects]).toEqual([12, 12, 1, 1]);
    expect(await engine.status('run-1')).toBe('completed');
    expect(await engine.status('nope')).toBe('unknown');
  });

  it('signals reach a wait, also when sent before it; unknown runs refuse them', async () => {
    const engine = new InMemoryEngine(realClock);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const done = engine.start('run-2', async (context) => {
      await gate;
      const first = await context.waitFor<string>('answer');
      const second = await context.waitFor<string>('answer');
      return `${first},${second}`;
    }, null);
    expect(await engine.signal('run-2', 'answer', 'early')).toBe(true); // before the wait
    release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await engine.signal('run-2', 'answer', 'late')).toBe(true);
    expect(await done).toBe('early,late');
    expect(await engine.signal('run-2', 'answer', 'after')).toBe(false);
    expect(await engine.signal('ghost', 'answer', 'x')).toBe(false);
  });

  it('cancel ends waits and sleeps at once and marks the run cancelled', async () => {
    const engine = new InMemoryEngine(realClock);
    const waiting = engine.start('run-3', async (context) => context.waitFor('never'), null);
    const sleeping = engine.start('run-4', async (context) => {
      await context.sleep(60_000);
      return context.signal.aborted ? 'woke cancelled' : 'slept';
    }, null);
    expect(await engine.cancel('run-3')).toBe(true);
    expect(await engine.cancel('run-4')).toBe(true);
    await expect(waiting).rejects.toBeInstanceOf(RunCancelledError);
    expect(await sleeping).toBe('woke cancelled');
    expect(await engine.status('run-3')).toBe('cancelled');
    expect(await engine.status('run-4')).toBe('cancelled');
    expect(await engine.cancel('run-3')).toBe(false);
  });

  it('keeps a bounded number of finished runs: 10,000 one-step runs leave at most the bound, the newest still idempotent', async () => {
    const engine = new InMemoryEngine(realClock, 100);
    let effects = 0;
    const cycle = async (context: Parameters<Parameters<InMemoryEngine['start']>[1]>[0], n: number) => context.step('think', async () => ++effects + n * 0);
    for (let n = 0; n < 10_000; n++) await engine.start(`cycle-${n}`, cycle, n);
    expect(effects).toBe(10_000);
    expect(engine.size).toBeLessThanOrEqual(100);
    expect(await engine.start('cycle-9999', cycle, 9999)).toBe(10_000); // the newest: same run, nothing re-run
    expect(await engine.status('cycle-0')).toBe('unknown'); // forgotten
    expect(effects).toBe(10_000);
  });
});
