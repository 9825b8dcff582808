import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliWarmPool, type WarmProcess } from './cli-warm-pool';

function fakeProcess(): WarmProcess & { killed: boolean; exited: boolean } {
  const process = {
    killed: false,
    exited: false,
    kill: () => void (process.killed = true),
    alive: () => !process.killed && !process.exited,
  };
  return process;
}

/** The pool sees `key` called `times` times (each call takes, then offers), for `owner`'s session if given. */
function calls(pool: CliWarmPool<ReturnType<typeof fakeProcess>>, key: string, times: number, started: ReturnType<typeof fakeProcess>[], owner?: string) {
  const taken = [];
  for (let i = 0; i < times; i++) {
    taken.push(pool.take(key, owner));
    pool.offer(
      key,
      () => {
        const process = fakeProcess();
        started.push(process);
        return process;
      },
      owner,
    );
  }
  return taken;
}

afterEach(() => vi.useRealTimers());

describe('CliWarmPool', () => {
  it('red-team round 4: a paused session\'s waiting process is ended at once; one another session also uses stays', () => {
    const pool = new CliWarmPool<ReturnType<typeof fakeProcess>>({ max: 4, idleMs: 60_000, freeMemory: () => 8 * 1024 ** 3 });
    const started: ReturnType<typeof fakeProcess>[] = [];
    calls(pool, 'alone', 2, started, 'session-a');
    calls(pool, 'shared', 1, started, 'session-a');
    calls(pool, 'shared', 1, started, 'session-b');
    expect(pool.size).toBe(2);
    const [alone, shared] = started;
    pool.release('session-a');
    expect(alone!.killed).toBe(true);
    expect(shared!.killed).toBe(false);
    expect(pool.size).toBe(1);
    pool.release('session-b');
    expect(shared!.killed).toBe(true);
    expect(pool.size).toBe(0);
  });

  it('starts a process ahead only for arguments seen twice, and hands it to the next call', () => {
    const pool = new CliWarmPool<ReturnType<typeof fakeProcess>>({ max: 4, idleMs: 60_000, freeMemory: () => 8 * 1024 ** 3 });
    const started: ReturnType<typeof fakeProcess>[] = [];
    expect(calls(pool, 'changing-1', 1, started)).toEqual([undefined]);
    expect(calls(pool, 'changing-2', 1, started)).toEqual([undefined]);
    expect(started).toHaveLength(0); // a prompt that changes every call never costs a process
    const taken = calls(pool, 'steady', 3, started);
    expect(taken[0]).toBeUndefined();
    expect(taken[1]).toBeUndefined();
    expect(taken[2]).toBe(started[0]);
    expect(pool.hits).toBe(1);
    expect(pool.size).toBe(1);
    pool.closeAll();
    // The one handed over is the call's; the one waiting for the next call is ended.
    expect(started.map((process) => process.killed)).toEqual([false, true]);
  });

  it('is bounded (the oldest waiting process is ended for a new one), reaps the idle and starts nothing when memory is short', () => {
    vi.useFakeTimers();
    let free = 8 * 1024 ** 3;
    const pool = new CliWarmPool<ReturnType<typeof fakeProcess>>({ max: 2, idleMs: 120_000, freeMemory: () => free });
    const started: ReturnType<typeof fakeProcess>[] = [];
    for (const key of ['a', 'b', 'c']) calls(pool, key, 2, started);
    expect(started).toHaveLength(3);
    expect(started.map((process) => process.killed)).toEqual([true, false, false]);
    expect(pool.size).toBe(2);
    vi.advanceTimersByTime(120_001);
    expect(pool.size).toBe(0);
    expect(started.every((process) => process.killed)).toBe(true);

    free = 512 * 1024 ** 2;
    calls(pool, 'd', 3, started);
    expect(started).toHaveLength(3);
  });

  it('starts none for a layer whose calls come further apart than a process is kept', () => {
    let now = 0;
    const pool = new CliWarmPool<ReturnType<typeof fakeProcess>>({ max: 4, idleMs: 120_000, freeMemory: () => 8 * 1024 ** 3, now: () => now });
    const started: ReturnType<typeof fakeProcess>[] = [];
    for (let i = 0; i < 4; i++) {
      calls(pool, 'resting', 1, started);
      now += 300_000;
    }
    expect(started).toHaveLength(0);
    calls(pool, 'resting', 1, started);
    now += 5_000;
    calls(pool, 'resting', 1, started); // talking again: calls seconds apart
    expect(started).toHaveLength(1);
  });

  it('never hands over a process that has exited on its own, and starts none when switched off', () => {
    const pool = new CliWarmPool<ReturnType<typeof fakeProcess>>({ max: 4, idleMs: 60_000, freeMemory: () => 8 * 1024 ** 3 });
    const started: ReturnType<typeof fakeProcess>[] = [];
    calls(pool, 'k', 2, started);
    started[0]!.exited = true;
    expect(pool.take('k')).toBeUndefined();

    const off = new CliWarmPool<ReturnType<typeof fakeProcess>>({ max: 0, idleMs: 60_000 });
    const none: ReturnType<typeof fakeProcess>[] = [];
    calls(off, 'k', 5, none);
    expect(none).toHaveLength(0);
  });
});
