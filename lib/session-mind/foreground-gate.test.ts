import { describe, expect, it } from 'vitest';
import { FakeClock, settle } from '@/test/support/fake-clock';
import { ForegroundGate } from './foreground-gate';

describe('ForegroundGate', () => {
  it('nothing to wait for without a reply; with one, waits until it ends', async () => {
    const clock = new FakeClock();
    const gate = new ForegroundGate(clock, 10_000);
    const giveWay = gate.allowance(new AbortController().signal);
    expect(giveWay()).toBeUndefined();
    const leave = gate.enter();
    let done = false;
    void giveWay()!.then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    leave();
    leave(); // twice is once
    await settle();
    expect(done).toBe(true);
    expect(giveWay()).toBeUndefined();
  });

  it('all the waits of one allowance last at most maxWaitMs together; two replies hold until both end', async () => {
    const clock = new FakeClock();
    const gate = new ForegroundGate(clock, 10_000);
    const leaveFirst = gate.enter();
    const leaveSecond = gate.enter();
    const giveWay = gate.allowance(new AbortController().signal);
    let first = false;
    void giveWay()!.then(() => (first = true));
    await clock.advance(6_000);
    leaveFirst();
    await settle();
    expect(first).toBe(false); // the other reply still runs
    leaveSecond();
    await settle();
    expect(first).toBe(true); // waited 6 s of its 10

    gate.enter();
    let second = false;
    void giveWay()!.then(() => (second = true));
    await clock.advance(3_999);
    expect(second).toBe(false);
    await clock.advance(1);
    await settle();
    expect(second).toBe(true);
    expect(giveWay()).toBeUndefined(); // spent, though a reply still runs
  });

  it('an abort ends the wait at once', async () => {
    const gate = new ForegroundGate(new FakeClock(), 10_000);
    gate.enter();
    const controller = new AbortController();
    const wait = gate.allowance(controller.signal)()!;
    controller.abort();
    await wait;
    expect(gate.allowance(controller.signal)()).toBeUndefined();
  });
});
