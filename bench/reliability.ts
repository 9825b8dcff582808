// `npm run bench:reliability` (add `--quick` for a short run): the figures of docs/reliability.md.
//  1. Soak: 20 sessions with continuous Subconscious loops, in this process (the real
//     Orchestrator, real SQLite, the real OpenAI-compatible adapter), against the fake server in
//     a child process answering at once; a user message per session every 30 s. Sampled every
//     10 s: event-loop delay, heap after a forced GC, RSS, open fds, child processes, WAL size.
//  2. kill -9 rounds against the real server (e2e/support/crash-rounds.ts), 50 by default.
//  3. The durable engine: 20 rounds of a DBOS worker SIGKILLed during step k of 8 (k cycling
//     through every step) and recovered by a replacement (test/support/dbos-kill-round.ts); then
//     20 rounds of the real server on DBOS SIGKILLed under a task — alternately mid-run (after 1…6
//     of 8 steps) and while a step waits on a card (e2e/support/task-kill-rounds.ts).
//  4. Two processes on one PostgreSQL: 10 rounds of a worker holding a session, killed; the
//     session moves to this process (failoverRounds).
//  5. Sessions spread over processes: 20 rounds of a worker joining (taking its share of 8) and
//     leaving, by Ctrl-C or kill -9, with messages sent during every move (bench/cluster.ts).
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runCrashRounds } from '../e2e/support/crash-rounds';
import { spawnServer } from '../e2e/support/spawn-server';
import { cardKillRound, runningKillRound } from '../e2e/support/task-kill-rounds';
import type { LayerModelConfig } from '../lib/config/model-config';
import { Cluster } from '../lib/engine/cluster';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { closeDb, getDb } from '../lib/store/db';
import { childPids } from '../test/support/processes';
import { dbosKillRound } from '../test/support/dbos-kill-round';
import { startPostgres } from '../test/support/postgres';
import { startWorker } from '../test/support/worker-process';
import { rebalanceRounds, rebalanceTable } from './cluster';
import { startFakeProcess } from './fake-process';
import { median, percentile } from './stats';

const quick = process.argv.includes('--quick');
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const fakePort = 3320;
const fakeEndpoint = `http://127.0.0.1:${fakePort}/v1`;
const startFake = (chunkDelayMs: number) => startFakeProcess(fakePort, chunkDelayMs);

interface Sample {
  atS: number;
  cycles: number;
  heapUsed: number;
  rss: number;
  fds: number;
  children: number;
  walBytes: number;
  lagP99Ms: number;
  lagMaxMs: number;
}

function openFds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((sum, p) => sum + p.x, 0) / n;
  const my = points.reduce((sum, p) => sum + p.y, 0) / n;
  const num = points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export async function soak(input: { sessions: number; minutes: number }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-soak-'));
  fs.mkdirSync(path.join(root, 'personas'));
  fs.copyFileSync('personas/iris.md', path.join(root, 'personas', 'iris.md'));
  process.env.AGENTCSD_DATA_DIR = path.join(root, 'data');
  process.env.AGENTCSD_PERSONAS_DIR = path.join(root, 'personas');
  const fake = await startFake(0);
  const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 512, endpoint: fakeEndpoint });
  const orchestrator = new Orchestrator();
  await orchestrator.start();
  let cycles = 0;
  let errors = 0;
  orchestrator.bus.subscribe((event) => {
    if (event.type === 'subconscious-output') cycles++;
    if (event.type === 'error') errors++;
  });
  const baseline = { fds: openFds(), children: childPids().length, rss: process.memoryUsage().rss };
  const ids: string[] = [];
  for (let index = 0; index < input.sessions; index++) {
    const session = await orchestrator.createSession({
      persona: 'iris',
      name: `Soak ${index + 1}`,
      models: { c_model: layer('fake-large'), s_model: layer('fake-small') },
      params: { pacing: 'continuous' },
    });
    ids.push(session.id);
  }
  const wal = path.join(root, 'data', 'agentcsd.db-wal');
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const samples: Sample[] = [];
  const started = Date.now();
  const end = started + input.minutes * 60_000;
  let nextMessage = started + 30_000;
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    if (Date.now() >= nextMessage) {
      for (const id of ids) await orchestrator.sendUserMessage(id, { text: `still there? ${Date.now()}` });
      nextMessage += 30_000;
    }
    global.gc?.();
    const memory = process.memoryUsage();
    samples.push({
      atS: Math.round((Date.now() - started) / 1000),
      cycles,
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      fds: openFds(),
      children: childPids().length,
      walBytes: fs.existsSync(wal) ? fs.statSync(wal).size : 0,
      lagP99Ms: lag.percentile(99) / 1e6,
      lagMaxMs: lag.max / 1e6,
    });
    lag.reset();
    const last = samples.at(-1)!;
    console.error(`soak ${last.atS}s: ${cycles} cycles, heap ${(last.heapUsed / 2 ** 20).toFixed(1)} MiB, rss ${(last.rss / 2 ** 20).toFixed(0)} MiB, fds ${last.fds}, lag p99 ${last.lagP99Ms.toFixed(1)} ms, wal ${(last.walBytes / 2 ** 20).toFixed(1)} MiB`);
  }
  lag.disable();
  const db = await getDb();
  const rows = await db.message.count();
  await orchestrator.stop();
  await closeDb();
  await fake.stop();
  const dbBytes = fs.statSync(path.join(root, 'data', 'agentcsd.db')).size;
  const after = { fds: openFds(), children: childPids().length };
  fs.rmSync(root, { recursive: true, force: true });
  // Growth from the second sample on: the first minute holds start-up and the JIT warming.
  const steady = samples.filter((sample) => sample.atS >= 60);
  const points = (key: 'heapUsed' | 'rss') => steady.map((sample) => ({ x: sample.cycles, y: sample[key] }));
  return {
    sessions: input.sessions,
    minutes: input.minutes,
    cycles,
    errors,
    rows,
    dbBytes,
    heapSlopeBytesPerCycle: slope(points('heapUsed')),
    rssSlopeBytesPerCycle: slope(points('rss')),
    lagP99MedianMs: median(samples.map((sample) => sample.lagP99Ms)),
    lagP99WorstMs: Math.max(...samples.map((sample) => sample.lagP99Ms)),
    lagMaxMs: Math.max(...samples.map((sample) => sample.lagMaxMs)),
    baseline,
    first: samples[0]!,
    last: samples.at(-1)!,
    walMaxBytes: Math.max(...samples.map((sample) => sample.walBytes)),
    after,
  };
}

export async function durableRounds(count: number) {
  const database = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-durable-rounds-'));
  try {
    const rounds = [];
    for (let round = 0; round < count; round++) {
      rounds.push(await dbosKillRound({ databaseUrl: database.urlFor('agentcsd_rounds'), dir, runId: `round-${round}`, steps: 8, k: round % 8 }));
    }
    return rounds;
  } finally {
    await database.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function durableTaskRounds(count: number) {
  if (!fs.existsSync('.next/BUILD_ID')) execSync('npx next build', { stdio: 'ignore' });
  const fake = await startFake(5);
  const database = await startPostgres();
  const port = 3321;
  try {
    const rounds = [];
    for (let round = 0; round < count; round++) {
      const root = path.join(os.tmpdir(), `agentcsd-task-rounds-${round}`);
      fs.rmSync(root, { recursive: true, force: true });
      const databaseUrl = database.urlFor(`task_round_${round}`);
      const env = { AGENTCSD_TASK_STEP_DELAY_MS: '150', AGENTCSD_ENGINE: 'dbos', AGENTCSD_DATABASE_URL: databaseUrl, AGENTCSD_EXECUTOR_ID: 'bench' };
      const setup = { base: `http://127.0.0.1:${port}`, fakeEndpoint, databaseUrl, start: () => spawnServer({ root, port, env }) };
      rounds.push(round % 2 === 0 ? await runningKillRound(setup, { maxSteps: 8, killAfterSteps: 1 + ((round / 2) % 6) }) : await cardKillRound(setup));
      console.error(`task round ${round + 1}/${count}: ${rounds.at(-1)!.failures.length === 0 ? 'ok' : rounds.at(-1)!.failures.join('; ')}`);
      fs.rmSync(root, { recursive: true, force: true });
    }
    return rounds;
  } finally {
    await database.stop();
    await fake.stop();
  }
}

/**
 * Several processes (issue 19): each round, a worker process holds a new session; a message is
 * sent through this process (answered by the worker's mind: a call across processes); the worker is
 * killed with SIGKILL; this process takes the session and answers the next message itself. Times:
 * message → agent reply across processes and locally (side by side), kill → session held here,
 * kill → first reply here.
 */
export async function failoverRounds(count: number) {
  const fake = await startFake(5);
  const database = await startPostgres();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-failover-'));
  fs.mkdirSync(path.join(root, 'personas'));
  fs.copyFileSync('personas/iris.md', path.join(root, 'personas', 'iris.md'));
  const env = { AGENTCSD_DATA_DIR: path.join(root, 'data'), AGENTCSD_PERSONAS_DIR: path.join(root, 'personas'), AGENTCSD_DATABASE_URL: database.url };
  Object.assign(process.env, env);
  const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 256, endpoint: fakeEndpoint });
  const db = await getDb();
  const holder = async (sessionId: string) => (await db.$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM session_leases WHERE session_id = $1', sessionId))[0]?.owner;
  const until = async <T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const replied = async (sessionId: string, text: string) =>
    until(`the reply to "${text}"`, () => db.message.count({ where: { sessionId, tag: 'ED_agent', content: `You said: ${text}` } }), (n) => n > 0);
  const rounds: { remoteReplyMs: number; localReplyMs: number; killToHeldMs: number; killToReplyMs: number; answeredOnce: boolean }[] = [];
  try {
    for (let round = 0; round < count; round++) {
      const worker = await startWorker({ ...env, AGENTCSD_EXECUTOR_ID: `failover-worker-${round}` });
      const creator = new Orchestrator(); // not started: it only writes the session; the worker takes it
      const session = await creator.createSession({ persona: 'iris', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });
      await until('the worker to hold the session', () => holder(session.id), (owner) => owner === `failover-worker-${round}`);
      const here = new Orchestrator({ cluster: new Cluster({ url: database.url, owner: 'failover-bench' }) });
      await here.start();
      await here.sendUserMessage(session.id, { text: `warm-up ${round}` }); // the worker's first model call is cold
      await replied(session.id, `warm-up ${round}`);
      let started = performance.now();
      await here.sendUserMessage(session.id, { text: `remote ${round}` });
      await replied(session.id, `remote ${round}`);
      const remoteReplyMs = performance.now() - started;
      const killed = performance.now();
      await worker.kill();
      await until('the session to move here', () => holder(session.id), (owner) => owner === 'failover-bench');
      const killToHeldMs = performance.now() - killed;
      await until('its mind here', async () => here.mindState(session.id), (state) => state !== null);
      await here.sendUserMessage(session.id, { text: `moved ${round}` });
      await replied(session.id, `moved ${round}`);
      const killToReplyMs = performance.now() - killed;
      started = performance.now();
      await here.sendUserMessage(session.id, { text: `local ${round}` });
      await replied(session.id, `local ${round}`);
      const localReplyMs = performance.now() - started;
      const answers = await db.message.count({ where: { sessionId: session.id, tag: 'ED_agent' } });
      rounds.push({ remoteReplyMs, localReplyMs, killToHeldMs, killToReplyMs, answeredOnce: answers === 4 });
      await here.deleteSession(session.id);
      await here.stop();
      console.error(`failover round ${round + 1}/${count}: held here ${killToHeldMs.toFixed(0)} ms after the kill`);
    }
    return rounds;
  } finally {
    await closeDb();
    for (const key of Object.keys(env)) delete process.env[key];
    await database.stop();
    await fake.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function crashRounds(rounds: number) {
  if (!fs.existsSync('.next/BUILD_ID')) execSync('npx next build', { stdio: 'ignore' });
  const fake = await startFake(15);
  try {
    return await runCrashRounds({ root: path.join(os.tmpdir(), 'agentcsd-crash-bench'), port: 3321, fakeEndpoint, rounds, sessions: 2, log: (line) => console.error(line) });
  } finally {
    await fake.stop();
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

if (process.argv[1]?.endsWith('reliability.ts')) {
  console.log(`# AgentCSD reliability — ${new Date().toISOString()}`);
  console.log(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}\n`);
  if (only === undefined || only === 'soak') {
    const result = await soak({ sessions: 20, minutes: quick ? 1.5 : 10 });
    console.log(`## Soak: ${result.sessions} sessions, continuous loops, ${result.minutes} min\n`);
    console.log('| measure | start | end |');
    console.log('|---|---|---|');
    console.log(`| cycles (all sessions) | ${result.first.cycles} (at ${result.first.atS} s) | ${result.last.cycles} |`);
    console.log(`| heap used after GC, MiB | ${mib(result.first.heapUsed)} | ${mib(result.last.heapUsed)} |`);
    console.log(`| RSS, MiB | ${mib(result.baseline.rss)} (before sessions) | ${mib(result.last.rss)} |`);
    console.log(`| open file descriptors | ${result.baseline.fds} (before sessions) | ${result.last.fds} (running), ${result.after.fds} (after stop) |`);
    console.log(`| child processes | ${result.baseline.children} (fake server, tsx's esbuild) | ${result.last.children} (running), ${result.after.children} (after stop) |`);
    console.log(`| WAL size, MiB | ${mib(result.first.walBytes)} | ${mib(result.last.walBytes)} (max ${mib(result.walMaxBytes)}) |`);
    console.log(`\nHeap growth ${result.heapSlopeBytesPerCycle.toFixed(1)} B/cycle, RSS growth ${result.rssSlopeBytesPerCycle.toFixed(1)} B/cycle (least squares over the samples after the first minute).`);
    console.log(`Event-loop delay p99 per 10 s window: median ${result.lagP99MedianMs.toFixed(1)} ms, worst ${result.lagP99WorstMs.toFixed(1)} ms; max single delay ${result.lagMaxMs.toFixed(1)} ms.`);
    console.log(`${result.cycles} cycles (${(result.cycles / (result.minutes * 60)).toFixed(1)}/s), ${result.errors} error events, ${result.rows} message rows, database ${mib(result.dbBytes)} MiB.\n`);
  }
  if (only === undefined || only === 'durable') {
    const rounds = await durableRounds(quick ? 4 : 20);
    const clean = rounds.filter((round) => round.failures.length === 0);
    console.log(`## Durable engine (DBOS): ${rounds.length} worker kills\n`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| rounds with every invariant held (steps before k once, k twice, each step finished once, result = uninterrupted run) | ${clean.length} of ${rounds.length} |`);
    console.log(`| step k killed (of 8) | ${rounds.map((round) => round.k).join(', ')} |`);
    console.log(`| replacement spawn → result (median / max ms) | ${median(rounds.map((round) => round.recoverMs)).toFixed(0)} / ${Math.max(...rounds.map((round) => round.recoverMs)).toFixed(0)} |`);
    console.log(`| failures | ${rounds.flatMap((round) => round.failures.map((failure) => `k=${round.k}: ${failure}`)).join('; ') || 'none'} |\n`);
    const tasks = await durableTaskRounds(quick ? 4 : 20);
    const running = tasks.filter((round) => round.kind === 'running');
    const cards = tasks.filter((round) => round.kind === 'card');
    console.log(`## The server on DBOS killed under a task: ${tasks.length} rounds\n`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| mid-run rounds clean (ended at the step limit; each step's grep once, none left running; one chat message per step; DBOS run recovered, each step journaled once) | ${running.filter((round) => round.failures.length === 0).length} of ${running.length} |`);
    console.log(`| steps finished at the kill (of 8) | ${running.map((round) => round.stepsAtKill).join(', ')} |`);
    console.log(`| card rounds clean (the card back after the restart, approved: the command ran once, the task completed with the answer) | ${cards.filter((round) => round.failures.length === 0).length} of ${cards.length} |`);
    const ended = running.map((round) => round.restartToEndMs).filter(Number.isFinite);
    console.log(`| restart → task ended, mid-run rounds that ended (median / max ms) | ${median(ended).toFixed(0)} / ${Math.max(...ended).toFixed(0)} |`);
    console.log(`| failures | ${tasks.flatMap((round) => round.failures.map((failure) => `${round.kind}: ${failure}`)).join('; ') || 'none'} |\n`);
  }
  if (only === undefined || only === 'failover') {
    const rounds = await failoverRounds(quick ? 3 : 10);
    console.log(`## Two processes on one PostgreSQL: ${rounds.length} worker kills\n`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| rounds where each message was answered once (one mind at a time) | ${rounds.filter((round) => round.answeredOnce).length} of ${rounds.length} |`);
    console.log(`| message → reply, mind in the other process (median / max ms) | ${median(rounds.map((round) => round.remoteReplyMs)).toFixed(0)} / ${Math.max(...rounds.map((round) => round.remoteReplyMs)).toFixed(0)} |`);
    console.log(`| message → reply, mind in this process (median / max ms) | ${median(rounds.map((round) => round.localReplyMs)).toFixed(0)} / ${Math.max(...rounds.map((round) => round.localReplyMs)).toFixed(0)} |`);
    console.log(`| SIGKILL → session held by the survivor (median / max ms; lease 5 s, heartbeat 1 s) | ${median(rounds.map((round) => round.killToHeldMs)).toFixed(0)} / ${Math.max(...rounds.map((round) => round.killToHeldMs)).toFixed(0)} |`);
    console.log(`| SIGKILL → first reply by the survivor (median / max ms) | ${median(rounds.map((round) => round.killToReplyMs)).toFixed(0)} / ${Math.max(...rounds.map((round) => round.killToReplyMs)).toFixed(0)} |\n`);
  }
  if (only === undefined || only === 'rebalance') {
    const result = await rebalanceRounds(quick ? 4 : 20);
    console.log(`## Sessions spread over processes: ${result.rounds.length} rounds of a worker joining and leaving, messages sent during every move\n`);
    console.log(`${rebalanceTable(result)}\n`);
  }
  if (only === undefined || only === 'crash') {
    const rounds = quick ? 5 : 50;
    const summary = await crashRounds(rounds);
    const kills = summary.rounds;
    console.log(`## kill -9: ${kills.length} rounds\n`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| rounds killed mid-reply / mid-cycle | ${kills.filter((round) => round.midReply).length} / ${kills.filter((round) => round.midCycle).length} |`);
    console.log(`| integrity_check ok | ${kills.filter((round) => round.integrity === 'ok').length} |`);
    console.log(`| acknowledged messages, all stored | ${summary.acknowledgedTotal} |`);
    console.log(`| DB rows without their log line right after a kill (replayed on restart) | ${kills.reduce((sum, round) => sum + round.rowsWithoutLine, 0)} in ${kills.filter((round) => round.rowsWithoutLine > 0).length} rounds |`);
    console.log(`| torn last lines injected / mended | ${kills.filter((round) => round.tornLineInjected).length} / ${kills.filter((round) => round.tornLineInjected).length - summary.failures.filter((failure) => failure.includes('torn')).length} |`);
    console.log(`| kill after (median / max ms) | ${median(kills.map((round) => round.killAfterMs)).toFixed(0)} / ${Math.max(...kills.map((round) => round.killAfterMs))} |`);
    console.log(`| restart to ready (median / p99 ms) | ${median(kills.map((round) => round.restartMs)).toFixed(0)} / ${percentile(kills.map((round) => round.restartMs), 99).toFixed(0)} |`);
    console.log(`| failures | ${summary.failures.length === 0 ? 'none' : summary.failures.join('; ')} |`);
  }
}
