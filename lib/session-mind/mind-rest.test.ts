// A mind that rests (issue 74), on the simulated clock with the real loop and store: by default it
// thinks once on its own after something new, then makes no call at all until something happens;
// a message wakes it at once; a rest it chose ("until 08:00") holds until then and its reason comes
// back in the prompt, so a promise for later is kept once; idle thoughts fold into one.
import { describe, expect, it } from 'vitest';
import { defaultParams, sessionParamsSchema } from '@/lib/config/model-config';
import { consolidationSystemPrompt } from '@/lib/memory/consolidation';
import { clockText, dreamAt, parseRest, planRest, quietUntil, restLimits } from '@/lib/mind/rest';
import { settle } from '@/test/support/fake-clock';
import { subconsciousReply } from '@/test/support/scripted-backend';
import { createSession, nextCycleDelay, useMindHarness } from '@/test/support/mind-harness';

const { harness } = useMindHarness();
const HOUR = 3600_000;

describe('the rest rules (lib/mind/rest.ts)', () => {
  const now = new Date(2026, 10, 22, 21, 15).getTime(); // 21:15 on the server's clock

  it('reads a rest for a while, until a time (tomorrow once passed) or until something happens, with its reason', () => {
    expect(parseRest('for 2h — nothing to do', now)).toEqual({ until: now + 2 * HOUR, reason: 'nothing to do' });
    expect(parseRest('for 90 minutes', now)).toEqual({ until: now + 90 * 60_000, reason: '' });
    expect(parseRest('until 08:00 — wish them a good morning', now)).toEqual({ until: new Date(2026, 10, 23, 8, 0).getTime(), reason: 'wish them a good morning' });
    expect(parseRest('until 9:30 pm: the film ends', now)!.until).toBe(new Date(2026, 10, 22, 21, 30).getTime());
    expect(parseRest('until they speak', now)).toEqual({ until: null, reason: 'they speak' });
    // Bounded: at least a minute, at most a day; nonsense is no rest.
    expect(parseRest('for 5s', now)!.until).toBe(now + 60_000);
    expect(parseRest('for 9 days', now)!.until).toBe(now + 24 * HOUR);
    for (const words of ['', 'sleepy', 'for ever', 'until 25:00']) expect(parseRest(words, now)).toBeNull();
  });

  it('plans: news at the activity’s pace, then deepening to the ceiling, then stored; a chosen rest is kept; continuous stays continuous', () => {
    const base = { pacing: 'adaptive' as const, activityDelayMs: 5_000, lastCycleEndedAt: 0, news: false, chosen: null, limits: restLimits({ idle_thoughts: 100 }), sinceNewsMs: 0 };
    expect(planRest({ ...base, quietCycles: 1, news: true })).toEqual({ kind: 'awake', at: 5_000 });
    expect(planRest({ ...base, quietCycles: 1 })).toEqual({ kind: 'awake', at: 5_000 });
    const pauses = [2, 3, 4, 8, 9, 20].map((quiet) => (planRest({ ...base, quietCycles: quiet }) as { at: number }).at);
    expect(pauses).toEqual([270_000, 540_000, 1_080_000, 17_280_000, 6 * HOUR, 6 * HOUR]);
    expect(planRest({ ...base, quietCycles: 2, limits: restLimits({}) })).toEqual({ kind: 'stored', at: null });
    expect(planRest({ ...base, quietCycles: 5, chosen: { until: 7 * HOUR, reason: 'later' } })).toMatchObject({ kind: 'chosen', at: 7 * HOUR });
    expect(planRest({ ...base, pacing: 'continuous', quietCycles: 50 })).toEqual({ kind: 'awake', at: 0 });
    // Fourteen days with nothing new: dormant, whatever rest it chose; news wakes it.
    const fortnight = 14 * 24 * HOUR;
    expect(planRest({ ...base, quietCycles: 1, chosen: { until: 7 * HOUR, reason: 'later' }, sinceNewsMs: fortnight })).toEqual({ kind: 'dormant', at: null });
    expect(planRest({ ...base, quietCycles: 1, sinceNewsMs: fortnight - 1 })).toEqual({ kind: 'awake', at: 5_000 });
    expect(planRest({ ...base, quietCycles: 1, news: true, sinceNewsMs: fortnight })).toEqual({ kind: 'awake', at: 5_000 });
  });
});

describe('the session’s time zone (its household’s clock, not the server’s)', () => {
  const now = Date.UTC(2026, 10, 22, 21, 15); // 21:15 UTC: 22:15 in Madrid, 06:15 tomorrow in Tokyo
  it('a rest until 08:00, quiet hours, the night’s dream and the time the mind is told are the household’s', () => {
    expect(parseRest('until 08:00 — wish them luck', now, 'Europe/Madrid')!.until).toBe(Date.UTC(2026, 10, 23, 7, 0));
    expect(parseRest('until 08:00', now, 'Asia/Tokyo')!.until).toBe(Date.UTC(2026, 10, 22, 23, 0)); // 08:00 there is in 1 h 45 min
    expect(quietUntil(now, '22:00-07:00', 'Europe/Madrid')).toBe(Date.UTC(2026, 10, 23, 6, 0));
    expect(quietUntil(now, '22:00-07:00', 'Asia/Tokyo')).toBe(Date.UTC(2026, 10, 22, 22, 0)); // 06:15 there: quiet until 07:00
    expect(quietUntil(now, '09:00-17:00', 'Asia/Tokyo')).toBeNull();
    expect(clockText(now, 'Europe/Madrid')).toBe('22:15');
    expect(clockText(now, 'Asia/Tokyo')).toBe('06:15');
    // Left at 21:15 UTC (06:15 in Tokyo): it dreams at 03:00 Tokyo time, the next night.
    expect(dreamAt({ newsSeen: 5, dreamtAtNews: -1, lastUserAt: now, awayMs: 10 * 60_000, hour: 3, dreamAfter: 40, timeZone: 'Asia/Tokyo' })).toBe(Date.UTC(2026, 10, 23, 18, 0));
    // A session's time zone is a real one.
    expect(sessionParamsSchema.safeParse({ ...defaultParams, time_zone: 'Europe/Madrid' }).success).toBe(true);
    expect(sessionParamsSchema.safeParse({ ...defaultParams, time_zone: 'Mars/Olympus' }).success).toBe(false);
  });
});

describe('when it dreams (lib/mind/rest.ts)', () => {
  const noon = new Date(2026, 10, 22, 12, 0).getTime();
  const base = { newsSeen: 5, dreamtAtNews: -1, lastUserAt: noon, awayMs: 10 * 60_000, hour: 3, dreamAfter: 40 };
  it('at the night’s hour after the user left; with enough news ten minutes after; never twice on the same news', () => {
    expect(dreamAt(base)).toBe(new Date(2026, 10, 23, 3, 0).getTime());
    expect(dreamAt({ ...base, newsSeen: 45 })).toBe(noon + 10 * 60_000);
    expect(dreamAt({ ...base, newsSeen: 45, dreamtAtNews: 10 })).toBe(new Date(2026, 10, 23, 3, 0).getTime()); // 35 new since the last dream
    expect(dreamAt({ ...base, dreamtAtNews: 5 })).toBeNull();
    // Left at 02:55: not before 03:05, so the next night.
    expect(dreamAt({ ...base, lastUserAt: new Date(2026, 10, 23, 2, 55).getTime() })).toBe(new Date(2026, 10, 24, 3, 0).getTime());
  });
});

describe('a resting mind', () => {
  it('by default: one thought of its own after the news, then no call for a day; a message wakes it at once', async () => {
    const h = harness();
    const session = await createSession(h);
    await h.events.waitFor('subconscious-output');
    expect(await nextCycleDelay(h, session.id)).toBe(5_000);
    await h.clock.advance(5_000);
    await h.events.waitFor('subconscious-output', { count: 2 });
    await settle(5);
    expect(h.orchestrator.mindState(session.id)).toMatchObject({ rest: { kind: 'stored', until: null }, nextCycleAt: null });
    for (let hour = 0; hour < 24; hour++) await h.clock.advance(HOUR);
    expect(h.s.calls).toHaveLength(2);
    await h.orchestrator.sendUserMessage(session.id, { text: 'still there?' });
    await h.events.waitFor('cycle-start', { count: 3 }); // no clock moved: at once
  });

  it('a rest it chose holds until its time, its reason comes back in the prompt, and what it promised is said once', async () => {
    const h = harness({
      s: [
        { text: `${subconsciousReply({ sQuiet: 'they have a test tomorrow' })}<rest>until 08:00 — wish them luck for the test</rest>` },
        { text: subconsciousReply({ sLoud: 'Wish them luck now.', trigger: true }) },
      ],
    });
    const session = await createSession(h);
    await h.events.waitFor('subconscious-output');
    const eight = new Date(h.clock.now());
    eight.setHours(8, 0, 0, 0);
    if (eight.getTime() <= h.clock.now()) eight.setDate(eight.getDate() + 1);
    await settle(5);
    expect(h.orchestrator.mindState(session.id)!.rest).toEqual({ kind: 'chosen', until: eight.toISOString(), reason: 'wish them luck for the test' });
    await h.clock.advance(eight.getTime() - h.clock.now() - 60_000);
    expect(h.s.calls).toHaveLength(1);
    await h.clock.advance(60_000);
    const spoke = await h.events.waitFor('turn-start');
    expect(spoke.spontaneous).toBe(true);
    expect(h.s.calls[1]!.messages[0]!.content).toContain('<rest>Your rest until 08:00 is over; you chose it because: wish them luck for the test. It is now 08:00.</rest>');
    // Once: the day goes on without another word of its own.
    for (let hour = 0; hour < 24; hour++) await h.clock.advance(HOUR);
    expect(h.events.of('turn-start').filter((turn) => turn.spontaneous)).toHaveLength(1);
  });

  it('dormant after the days it is given with nothing new, even with rests it keeps choosing; a message ends it', async () => {
    const h = harness({ sFallback: { text: `${subconsciousReply()}<rest>for 12h — check again</rest>` } });
    const session = await createSession(h, { dormant_after_days: 2 });
    await h.events.waitFor('subconscious-output');
    for (let hour = 0; hour < 24 * 5; hour++) await h.clock.advance(HOUR);
    // Its own rests ran out at 12 h, 24 h, 36 h (each a call); from 48 h nothing, for days.
    expect(h.s.calls).toHaveLength(4);
    expect(h.orchestrator.mindState(session.id)!.rest).toMatchObject({ kind: 'dormant' });
    await h.orchestrator.sendUserMessage(session.id, { text: 'back' });
    await h.events.waitFor('cycle-start', { count: 5 });
  });

  it('quiet hours: the words it wanted to say wait for their end, then it is asked again and speaks', async () => {
    const h = harness({
      s: [{ text: subconsciousReply({ sLoud: 'Tell them the parcel came.', trigger: true }) }, { text: subconsciousReply({ sLoud: 'Tell them now.', trigger: true }) }],
    });
    const hhmm = (at: number) => new Date(at).toTimeString().slice(0, 5);
    const start = h.clock.now();
    const session = await createSession(h, { quiet_hours: `${hhmm(start - HOUR)}-${hhmm(start + 2 * HOUR)}` });
    const held = await h.events.waitFor('subconscious-output');
    expect(held.spontaneous).toBe('quiet');
    await settle(5);
    expect(h.orchestrator.mindState(session.id)!.rest).toMatchObject({ kind: 'quiet', reason: 'Tell them the parcel came.' });
    await h.clock.advance(2 * HOUR - 60_000);
    expect(h.events.of('turn-start')).toHaveLength(0);
    await h.clock.advance(60_000);
    expect((await h.events.waitFor('turn-start')).spontaneous).toBe(true);
    expect(h.s.calls[1]!.messages[0]!.content).toContain('during them you wanted to say: Tell them the parcel came.');
  });

  it('idle thoughts fold into one: the prompt does not grow with idle time', async () => {
    const h = harness({ sFallback: (_request, call) => ({ text: subconsciousReply({ sQuiet: `idle thought ${call}` }) }) });
    const session = await createSession(h, { idle_thoughts: 100_000, rest_ceiling_minutes: 5 });
    await h.events.waitFor('subconscious-output');
    for (let round = 0; round < 8; round++) {
      await h.clock.advance(await nextCycleDelay(h, session.id));
      await h.events.waitFor('subconscious-output', { count: round + 2 });
    }
    const last = h.s.calls.at(-1)!.messages[0]!.content;
    expect(last.match(/idle thought/g)).toHaveLength(2); // the thought that read the news, and the latest idle one
  });

  /** Two things said and answered (four messages: enough for the memory to consolidate); how many dreams the Subconscious's model was asked for. */
  async function toldTwoThings(h: ReturnType<typeof harness>, sessionId: string): Promise<() => number> {
    await h.events.waitFor('subconscious-output');
    await h.orchestrator.sendUserMessage(sessionId, { text: 'My sister Ana lives in Madrid.' });
    await h.events.waitFor('turn-end');
    await h.orchestrator.sendUserMessage(sessionId, { text: 'She visits in May.' });
    await h.events.waitFor('turn-end', { count: 2 });
    return () => h.s.calls.filter((call) => call.system[0]?.text === consolidationSystemPrompt).length;
  }

  it('dreams at night: what was said is consolidated at 03:00, once, not when the user has just left', async () => {
    const h = harness({ cFallback: { text: '<ID_loud>Noted.</ID_loud><ID_quiet>they told me about Ana</ID_quiet>' } });
    const session = await createSession(h);
    const dreams = await toldTwoThings(h, session.id);
    const night = new Date(h.clock.now());
    night.setHours(3, 0, 0, 0);
    if (night.getTime() <= h.clock.now() + 10 * 60_000) night.setDate(night.getDate() + 1);
    await h.clock.advance(HOUR);
    expect(dreams()).toBe(0); // away an hour: still no dream
    await h.clock.advance(night.getTime() - h.clock.now() - 60_000);
    expect(dreams()).toBe(0);
    await h.clock.advance(2 * 60_000);
    await h.events.waitFor('memory-consolidation');
    expect(dreams()).toBe(1);
    for (let hour = 0; hour < 48; hour++) await h.clock.advance(HOUR);
    expect(dreams()).toBe(1); // nothing new: no second dream
  });

  it('dreams sooner after enough news: ten minutes after the user left', async () => {
    const h = harness({ cFallback: { text: '<ID_loud>Noted.</ID_loud><ID_quiet>ok</ID_quiet>' } });
    const session = await createSession(h, { dream_after: 2 });
    const dreams = await toldTwoThings(h, session.id);
    await h.clock.advance(9 * 60_000);
    expect(dreams()).toBe(0);
    await h.clock.advance(2 * 60_000);
    await h.events.waitFor('memory-consolidation');
    expect(dreams()).toBe(1);
  });
});
