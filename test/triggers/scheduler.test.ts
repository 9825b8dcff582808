// Schedules on a simulated clock and the real store (issue 29 §1–2): daylight saving forward and
// back in Europe/Madrid, the 31st of short months, leap day, slots missed while the app was down
// with each catch-up policy, a fire cut by a crash completed once, two schedulers on one store
// firing each slot once, a task schedule that never overlaps its previous run, and three failures
// in a row pausing a schedule with the reason; a slot at a spent daily allowance skipped with it.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultParams, type LayerModelConfig } from '@/lib/config/model-config';
import { EventBus } from '@/lib/mind/events';
import { realClock } from '@/lib/clock/clock';
import { getDb } from '@/lib/store/db';
import { SessionPausedError } from '@/lib/mind/session-errors';
import { insertSession } from '@/lib/store/sessions-repository';
import { insertTask, updateTask, type TaskRecord } from '@/lib/store/tasks-repository';
import { findSchedule, updateSchedule } from '@/lib/store/triggers-repository';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';
import { Scheduler, type TriggerHost } from '@/lib/triggers/scheduler';
import { FakeClock } from '@/test/support/fake-clock';
import { replaceAllowances, reserve, settle } from '@/lib/store/allowances-repository';
import { addSessionPeople, messagesToday } from '@/lib/store/people-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();

const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'fake', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };
let sessions = 0;
const running: Scheduler[] = [];
afterEach(async () => {
  for (const scheduler of running.splice(0)) await scheduler.stop();
  await (await getDb()).schedule.deleteMany(); // each test's schedules are its own
});

async function newSession(): Promise<string> {
  const id = `00000000-0000-4000-8000-${String(++sessions).padStart(12, '0')}`;
  await insertSession({ id, name: id, personaName: `p${sessions}`, personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
  return id;
}

/** A host that records what fired and when (simulated time); `fail` makes sends throw. */
function recordingHost(clock: FakeClock, options: { fail?: () => Error | null } = {}) {
  const fired: { at: string; text?: string; taskId?: string }[] = [];
  const bus = new EventBus();
  const host: TriggerHost = {
    bus,
    clock,
    sendMessage: async (_sessionId, text) => {
      const error = options.fail?.();
      if (error) throw error;
      fired.push({ at: new Date(clock.now()).toISOString(), text });
    },
    startTask: async (sessionId, input, ids) => {
      const task = await insertTask({ id: ids.id, sessionId, goal: input.goal, context: input.context ?? null, constraints: input.constraints, traceId: ids.traceId });
      fired.push({ at: new Date(clock.now()).toISOString(), taskId: task.id });
      return task;
    },
  };
  return { host, fired, bus };
}

async function startScheduler(host: TriggerHost): Promise<Scheduler> {
  const scheduler = new Scheduler(host);
  running.push(scheduler);
  await scheduler.start();
  return scheduler;
}

const schedule = (sessionId: string, clock: FakeClock, body: Record<string, unknown>) =>
  createSchedule({ sessionId, body: createScheduleSchema.parse(body), createdBy: 'user', now: new Date(clock.now()) });

describe('schedules on a simulated clock', () => {
  it('02:30 every day in Madrid: once on the day clocks go forward (at 03:00), once on the day they go back', async () => {
    const clock = new FakeClock(Date.parse('2026-03-28T12:00:00Z'));
    const { host, fired } = recordingHost(clock);
    const sessionId = await newSession();
    await schedule(sessionId, clock, { kind: 'cron', expression: '30 2 * * *', time_zone: 'Europe/Madrid', action: { kind: 'message', text: 'water the plants' } });
    await startScheduler(host);
    await clock.advance(2 * 24 * 3600_000);
    expect(fired.map((fire) => fire.at)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(fired[0]!.text).toMatch(/^⏰ Scheduled "water the plants" \(29 Mar 2026, 03:00\): water the plants$/);

    const autumn = new FakeClock(Date.parse('2026-10-24T12:00:00Z'));
    const second = recordingHost(autumn);
    const other = await newSession();
    await schedule(other, autumn, { kind: 'cron', expression: '30 2 * * *', time_zone: 'Europe/Madrid', action: { kind: 'message', text: 'again' } });
    await startScheduler(second.host);
    await autumn.advance(2 * 24 * 3600_000);
    expect(second.fired.filter((fire) => fire.text!.endsWith('again')).map((fire) => fire.at)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('the 31st skips short months; 29 February waits for a leap year', async () => {
    const clock = new FakeClock(Date.parse('2027-01-30T00:00:00Z'));
    const { host, fired } = recordingHost(clock);
    const sessionId = await newSession();
    await schedule(sessionId, clock, { kind: 'cron', expression: '0 9 31 * *', action: { kind: 'message', text: 'month end' } });
    const leap = await schedule(sessionId, clock, { kind: 'cron', expression: '0 12 29 2 *', action: { kind: 'message', text: 'leap' } });
    expect(leap.nextFireAt!.toISOString()).toBe('2028-02-29T12:00:00.000Z');
    await startScheduler(host);
    await clock.advance(95 * 24 * 3600_000);
    expect(fired.map((fire) => fire.at)).toEqual(['2027-01-31T09:00:00.000Z', '2027-03-31T09:00:00.000Z']);
  });

  it('slots missed while the app was down: catch-up "once" fires one, "skip" fires none; both go on at the next slot', async () => {
    const clock = new FakeClock(Date.parse('2026-11-25T07:00:00Z'));
    const sessionId = await newSession();
    const once = await schedule(sessionId, clock, { kind: 'cron', expression: '0 * * * *', catch_up: 'once', action: { kind: 'message', text: 'hourly once' } });
    const skip = await schedule(sessionId, clock, { kind: 'cron', expression: '0 * * * *', catch_up: 'skip', action: { kind: 'message', text: 'hourly skip' } });
    // Down from 07:00 to 10:20: three slots missed.
    const later = new FakeClock(Date.parse('2026-11-25T10:20:00Z'));
    const { host, fired } = recordingHost(later);
    await startScheduler(host);
    await later.advance(60_000);
    expect(fired.map((fire) => fire.text!.split(': ')[1])).toEqual(['hourly once']);
    expect((await findSchedule(skip.id))!.lastResult).toMatch(/^skipped 2026-11-25T08:00:00.000Z: missed/);
    await later.advance(3600_000);
    expect(fired.map((fire) => `${fire.at} ${fire.text!.split(': ')[1]}`)).toEqual(['2026-11-25T10:20:00.000Z hourly once', '2026-11-25T11:00:00.000Z hourly once', '2026-11-25T11:00:00.000Z hourly skip']);
    expect((await findSchedule(once.id))!.nextFireAt!.toISOString()).toBe('2026-11-25T12:00:00.000Z');
  });

  it('two schedulers on one store fire each slot once; a fire cut by a crash is completed once', async () => {
    const clock = new FakeClock(Date.parse('2026-11-25T07:59:00Z'));
    const sessionId = await newSession();
    await schedule(sessionId, clock, { kind: 'cron', expression: '*/5 * * * *', action: { kind: 'message', text: 'tick' } });
    const a = recordingHost(clock);
    const b = recordingHost(clock);
    await startScheduler(a.host);
    await startScheduler(b.host);
    await clock.advance(30 * 60_000);
    const all = [...a.fired, ...b.fired].map((fire) => fire.at).sort();
    expect(all).toHaveLength(6);
    expect(new Set(all).size).toBe(6);

    // Claimed, then the process died before the message went out: the next start completes it.
    const cut = await schedule(sessionId, clock, { kind: 'once', expression: '2026-11-25 09:00', action: { kind: 'message', text: 'cut' } });
    await updateSchedule(cut.id, { state: 'done', nextFireAt: null, lastResult: 'firing 2026-11-25T09:00:00.000Z' });
    const restarted = recordingHost(clock);
    await startScheduler(restarted.host);
    expect(restarted.fired.map((fire) => fire.text)).toEqual([expect.stringMatching(/: cut$/)]);
    expect((await findSchedule(cut.id))!.lastResult).toBe('message sent');
  });

  it('a task schedule never overlaps its previous run; three failures in a row pause a schedule with the reason', async () => {
    const clock = new FakeClock(Date.parse('2026-11-25T07:59:00Z'));
    const sessionId = await newSession();
    const task = await schedule(sessionId, clock, { kind: 'cron', expression: '0 * * * *', action: { kind: 'task', goal: 'read the inbox', constraints: { max_steps: 5 } } });
    const { host, fired } = recordingHost(clock);
    await startScheduler(host);
    await clock.advance(61_000);
    expect(fired).toHaveLength(1);
    await clock.advance(3600_000); // the 09:00 slot: the 08:00 task is still pending
    expect(fired).toHaveLength(1);
    expect((await findSchedule(task.id))!.lastResult).toMatch(/^skipped 2026-11-25T09:00:00.000Z: its previous task .* is still pending$/);
    await updateTask(fired[0]!.taskId!, { status: 'completed', result: 'done', finishedAt: new Date() }, ['pending'], undefined as unknown as TaskRecord);
    await clock.advance(3600_000);
    expect(fired).toHaveLength(2);

    let attempts = 0;
    const failing = recordingHost(clock, { fail: () => (++attempts <= 3 ? new Error('the model is down') : null) });
    const paused = recordingHost(clock, { fail: () => new SessionPausedError(sessionId) });
    const broken = await schedule(sessionId, clock, { kind: 'cron', expression: '*/10 * * * *', action: { kind: 'message', text: 'x' } });
    await running.splice(0)[0]!.stop();
    await startScheduler(failing.host);
    await clock.advance(31 * 60_000);
    const after = (await findSchedule(broken.id))!;
    expect(after).toMatchObject({ state: 'paused', failures: 3 });
    expect(after.lastResult).toBe('paused after 3 failures in a row: the model is down');

    // A paused session is not the schedule's failure: the slot is skipped and says why.
    const resting = await schedule(sessionId, clock, { kind: 'cron', expression: '*/10 * * * *', action: { kind: 'message', text: 'y' } });
    await running.splice(0)[0]!.stop();
    await updateSchedule(broken.id, { state: 'paused' });
    await startScheduler(paused.host);
    await clock.advance(11 * 60_000);
    expect(await findSchedule(resting.id)).toMatchObject({ state: 'active', failures: 0, lastResult: expect.stringMatching(/: the session is paused$/) });
  });

  it('a slot months away keeps the timer asleep (a 32-bit timer overflow made it spin: found by the benchmark)', async () => {
    const clock = new FakeClock(Date.now());
    const sessionId = await newSession();
    await schedule(sessionId, clock, { kind: 'cron', expression: '0 0 1 1 *', action: { kind: 'message', text: 'new year' } });
    let sleeps = 0;
    const counting = { now: () => Date.now(), sleep: (ms: number, signal?: AbortSignal) => (sleeps++, realClock.sleep(ms, signal)) };
    const { host } = recordingHost(clock);
    await startScheduler({ ...host, clock: counting });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sleeps).toBeLessThanOrEqual(2);
  });

  it("a slot at a spent daily allowance is skipped with the reason (issue 48); raised, the next slot fires", async () => {
    const clock = new FakeClock(Date.parse('2026-11-27T08:00:00Z'));
    const { host, fired } = recordingHost(clock);
    const sessionId = await newSession();
    const persona = `p${sessions}`;
    const allowance = { id: `persona:${persona}`, scope: 'persona' as const, scopeId: persona, usdPerDay: null, tokensPerDay: 10, timeZone: 'UTC' };
    await replaceAllowances([allowance], new Date(clock.now()));
    const held = await reserve([allowance], { usd: 0, tokens: 10 }, new Date(clock.now()));
    if (held.ok) await settle(held.reservation, { usd: 0, tokens: 10 });
    const made = await schedule(sessionId, clock, { kind: 'cron', expression: '0 9 * * *', time_zone: 'UTC', action: { kind: 'message', text: 'daily digest' } });
    await startScheduler(host);
    await clock.advance(2 * 3600_000);
    expect(fired).toEqual([]);
    expect((await findSchedule(made.id))!.lastResult).toBe(`skipped 2026-11-27T09:00:00.000Z: today's allowance (persona ${persona}) is spent; it renews at midnight UTC`);
    await clock.advance(24 * 3600_000); // the next day is a new allowance day
    expect(fired.map((fire) => fire.at)).toEqual(['2026-11-28T09:00:00.000Z']);
    await replaceAllowances([], new Date(clock.now()));
  });

  it("a person's own schedule counts against their daily messages: past the limit the slot is skipped with the reason (issue 72 §3)", async () => {
    const clock = new FakeClock(Date.parse('2026-11-27T08:00:00Z'));
    const { host, fired } = recordingHost(clock);
    const sessionId = await newSession();
    const personId = `person-${sessions}`;
    await (await getDb()).person.create({ data: { id: personId, name: 'Nia', role: 'trusted', limits: JSON.stringify({ messages_per_day: 2 }) } });
    await addSessionPeople(sessionId, [personId]);
    const made = await schedule(sessionId, clock, { kind: 'cron', expression: '0 * * * *', time_zone: 'UTC', action: { kind: 'message', text: 'hourly nudge' } });
    await startScheduler(host);
    await clock.advance(3 * 3600_000); // 09:00, 10:00, 11:00
    expect(fired.map((fire) => fire.at)).toEqual(['2026-11-27T09:00:00.000Z', '2026-11-27T10:00:00.000Z']);
    expect((await findSchedule(made.id))!.lastResult).toMatch(/^skipped 2026-11-27T11:00:00.000Z: Sorry — that is today's 2 messages with this assistant/);
    expect(await messagesToday(personId, new Date(clock.now()))).toBe(2);
  });
});
