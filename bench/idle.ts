// `npm run bench:idle` (issue 74): what an idle conversation costs, on the real loop, pacing, rest
// and prompt assembly with a simulated clock and a simulated model (bench/mind.ts: 50 tokens/s,
// 400 ms to the first token, usage reported as a server reports it). Measured side by side in one run:
//  1. one idle conversation, its first day and each later day (a week), by configuration: the
//     default rest; a mind kept awake (idle thoughts unlimited, rest capped at 5 minutes — close to
//     the old adaptive rule); the seed's continuous loop (its first hour, times 24);
//  2. twenty idle conversations for a week, default rest;
//  3. a message after 20 idle hours: time to the reply's first token against an awake session's,
//     in real time (instant model), alternating, medians;
//  4. a promise the mind gave itself ("until 08:00 — wish them luck"): when it spoke, and how often.
// Dollars at a Haiku-class price (claude-haiku-4-5, $1 / $5 per million), as lib/backends/pricing.ts has it.
import type { SessionParams } from '../lib/config/model-config';
import { estimateCost } from '../lib/backends/pricing';
import { idleCost } from '../lib/mind/idle-cost';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { closeDb } from '../lib/store/db';
import { FakeClock } from '../test/support/fake-clock';
import { ScriptedBackend, subconsciousReply } from '../test/support/scripted-backend';
import { SimulatedModel, stopOnClock, useScratchDirs } from './mind';
import { median } from './stats';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const layer = (model: string) => ({ backend: 'openai_compatible' as const, model, max_tokens: 512, endpoint: 'http://127.0.0.1:9/v1' });
const models = { c_model: layer('c'), s_model: layer('s') };
const quick = process.argv.includes('--quick');

interface Tokens {
  calls: number;
  input: number;
  output: number;
}
const total = (tokens: Tokens) => tokens.input + tokens.output;
const dollars = (tokens: Tokens) => estimateCost('claude-haiku-4-5', { inputTokens: tokens.input, outputTokens: tokens.output, cacheReadTokens: 0, cacheWriteTokens: 0 }) as number;

/** `sessions` conversations nobody speaks to, for `days` simulated days: tokens per day (all sessions). */
async function idleDays(input: { sessions: number; days: number; params: Partial<SessionParams>; hours?: number }): Promise<Tokens[]> {
  const cleanup = useScratchDirs();
  const clock = new FakeClock();
  const model = new SimulatedModel(clock, 50, 400);
  const orchestrator = new Orchestrator({ clock, createBackend: () => model });
  const perDay: Tokens[] = [];
  const today = () => perDay.at(-1)!;
  orchestrator.bus.subscribe((event) => {
    if (event.type !== 'usage') return;
    today().calls++;
    today().input += event.call.inputTokens;
    today().output += event.call.outputTokens;
  });
  try {
    await orchestrator.start();
    perDay.push({ calls: 0, input: 0, output: 0 });
    for (let index = 0; index < input.sessions; index++) await orchestrator.createSession({ persona: 'bench', models, params: input.params });
    const hours = input.hours ?? 24;
    for (let day = 0; day < input.days; day++) {
      if (day > 0) perDay.push({ calls: 0, input: 0, output: 0 });
      for (let hour = 0; hour < hours; hour++) {
        // Continuous pacing never sleeps long: small steps let the simulated model keep up.
        const step = input.params.pacing === 'continuous' ? 10_000 : HOUR;
        for (let at = 0; at < HOUR; at += step) await clock.advance(step);
      }
    }
  } finally {
    await stopOnClock(orchestrator, clock, cleanup);
  }
  return perDay;
}

/** Real time from a message to its reply's first token: a session asleep for 20 simulated hours against one just made, alternating. */
async function wakeLatency(rounds: number): Promise<{ asleepMs: number[]; awakeMs: number[] }> {
  const cleanup = useScratchDirs();
  const clock = new FakeClock();
  const backend = new ScriptedBackend([], (request) => (request.system[0]!.text.includes('You are the Internal Dialog') ? { text: '<ID_loud>Here.</ID_loud><ID_quiet>ok</ID_quiet>' } : { text: subconsciousReply() }), { keepCalls: false });
  const orchestrator = new Orchestrator({ clock, createBackend: () => backend });
  const firstToken = new Map<string, () => void>();
  orchestrator.bus.subscribe((event) => {
    if (event.type === 'reply-delta') firstToken.get(event.sessionId)?.();
  });
  const asleepMs: number[] = [];
  const awakeMs: number[] = [];
  const measure = async (sessionId: string): Promise<number> => {
    const started = performance.now();
    const replied = new Promise<void>((resolve) => firstToken.set(sessionId, resolve));
    await orchestrator.sendUserMessage(sessionId, { text: 'still there?' });
    await replied;
    firstToken.delete(sessionId);
    return performance.now() - started;
  };
  try {
    await orchestrator.start();
    for (let round = 0; round < rounds; round++) {
      const asleep = await orchestrator.createSession({ persona: 'bench', models });
      await clock.advance(20 * HOUR);
      const awake = await orchestrator.createSession({ persona: 'bench', models });
      await clock.advance(1_000);
      if (round % 2 === 0) {
        asleepMs.push(await measure(asleep.id));
        awakeMs.push(await measure(awake.id));
      } else {
        awakeMs.push(await measure(awake.id));
        asleepMs.push(await measure(asleep.id));
      }
      await clock.advance(60_000);
      await orchestrator.pauseSession(asleep.id);
      await orchestrator.pauseSession(awake.id);
    }
  } finally {
    await orchestrator.stop();
    await closeDb();
    cleanup();
  }
  return { asleepMs, awakeMs };
}

/** The mind rests "until 08:00 — wish them luck" at 21:00 and speaks when its rest runs out: minutes after 08:00, and how many times in two days. */
async function promiseKept(): Promise<{ offByMinutes: number | null; spoken: number }> {
  const cleanup = useScratchDirs();
  const start = new Date(2026, 10, 22, 21, 0).getTime();
  const clock = new FakeClock(start);
  let subconscious = 0;
  const backend = new ScriptedBackend([], (request) => {
    if (request.system[0]!.text.includes('You are the Internal Dialog')) return { text: '<ID_loud>Good luck today!</ID_loud><ID_quiet>as promised</ID_quiet>' };
    subconscious++;
    if (subconscious === 1) return { text: `${subconsciousReply({ sQuiet: 'they have an exam tomorrow' })}<rest>until 08:00 — wish them luck for the exam</rest>` };
    const due = request.messages[0]!.content.includes('<rest>Your rest until 08:00 is over');
    return { text: subconsciousReply({ sLoud: due ? 'Wish them luck now.' : '', trigger: due }) };
  });
  const orchestrator = new Orchestrator({ clock, createBackend: () => backend });
  const spokenAt: number[] = [];
  orchestrator.bus.subscribe((event) => {
    if (event.type === 'turn-start' && event.spontaneous) spokenAt.push(clock.now());
  });
  try {
    await orchestrator.start();
    await orchestrator.createSession({ persona: 'bench', models });
    for (let minute = 0; minute < 2 * 24 * 60; minute += 10) await clock.advance(10 * 60_000);
  } finally {
    await stopOnClock(orchestrator, clock, cleanup);
  }
  const eight = new Date(2026, 10, 23, 8, 0).getTime();
  return { offByMinutes: spokenAt.length ? (spokenAt[0]! - eight) / 60_000 : null, spoken: spokenAt.length };
}

const fmt = (value: number) => Math.round(value).toLocaleString('en');
const usd = (value: number) => `$${value.toFixed(value < 0.1 ? 4 : 2)}`;

console.log('## Idle cost (simulated clock, the real loop and prompts; model 50 tokens/s + 400 ms)\n');
const days = quick ? 3 : 7;
const rested = await idleDays({ sessions: 1, days, params: {} });
const awake = await idleDays({ sessions: 1, days: quick ? 1 : 2, params: { idle_thoughts: 100_000, rest_ceiling_minutes: 5 } });
const continuousHour = (await idleDays({ sessions: 1, days: 1, hours: 1, params: { pacing: 'continuous' } }))[0]!;
const later = (rows: Tokens[]) => rows.slice(1);
const laterMedian = (rows: Tokens[]) => (later(rows).length ? median(later(rows).map(total)) : Number.NaN);
console.log('| one idle conversation | calls, first day | tokens, first day | tokens, each later day (median) | $ first day (Haiku-class) |');
console.log('|---|---|---|---|---|');
console.log(`| default rest | ${rested[0]!.calls} | ${fmt(total(rested[0]!))} | ${fmt(laterMedian(rested))} | ${usd(dollars(rested[0]!))} |`);
console.log(`| kept awake (idle thoughts unlimited, rest ≤ 5 min) | ${awake[0]!.calls} | ${fmt(total(awake[0]!))} | ${fmt(laterMedian(awake))} | ${usd(dollars(awake[0]!))} |`);
console.log(`| continuous (the seed's loop; first hour × 24) | ${fmt(continuousHour.calls * 24)} | ${fmt(total(continuousHour) * 24)} | — | ${usd(dollars(continuousHour) * 24)} |`);
const estimate = idleCost({ pacing: 'adaptive' });
const estimateAwake = idleCost({ pacing: 'adaptive', idle_thoughts: 100_000, rest_ceiling_minutes: 5 });
console.log(`\nThe home page's estimate (lib/mind/idle-cost.ts, from the rest rules and the benchmark's cycle size): default rest ${estimate.first.cycles} calls / ${fmt(estimate.first.inputTokens + estimate.first.outputTokens)} tokens the first day, ${fmt(estimate.later.inputTokens + estimate.later.outputTokens)} after (simulated above: ${rested[0]!.calls} / ${fmt(total(rested[0]!))}); kept awake ${estimateAwake.first.cycles} calls the first day (simulated: ${awake[0]!.calls}).`);
console.log(`\nDefault rest against kept awake, first day: ${(total(awake[0]!) / Math.max(1, total(rested[0]!))).toFixed(0)}× fewer tokens. Before this change (issue 74's measure of the old adaptive rule): 344 calls and 1.61 M tokens on the first day, ~2 M each later day. Peer: OpenClaw's default heartbeat, about 2 M tokens a day as its users report it (openclaw #64293).\n`);

const twenty = await idleDays({ sessions: 20, days, params: {} });
const week = twenty.reduce((sum, day) => sum + total(day), 0);
console.log(`Twenty idle conversations, ${days} days, default rest: ${fmt(twenty.reduce((sum, day) => sum + day.calls, 0))} calls, ${fmt(week)} tokens (${usd(twenty.reduce((sum, day) => sum + dollars(day), 0))}); per day: ${twenty.map((day) => fmt(total(day))).join(' · ')}.\n`);

const latency = await wakeLatency(quick ? 6 : 20);
console.log(`A message to a session asleep 20 simulated hours: first reply token median ${median(latency.asleepMs).toFixed(1)} ms, against ${median(latency.awakeMs).toFixed(1)} ms for a session just made (${latency.asleepMs.length} alternating pairs, instant model): ${(median(latency.asleepMs) - median(latency.awakeMs)).toFixed(1)} ms apart.\n`);

const promise = await promiseKept();
console.log(`A promise for later ("until 08:00 — wish them luck", chosen at 21:00): spoken ${promise.spoken} time(s) in two days, ${promise.offByMinutes === null ? 'never' : `${promise.offByMinutes.toFixed(1)} min after 08:00`}.`);
