// Issue 31's figures. Run alone: `node --import tsx bench/cluster.ts [--quick] [--only=rebalance|capacity]` (also part of
// `npm run bench` and of `npm run bench:reliability -- --only=rebalance`).
//  1. rebalanceRounds: this process holds 8 active sessions; each round a real worker process joins
//     (it takes its share, handed over at quiet moments) and leaves — with Ctrl-C (SIGTERM) on even
//     rounds, kill -9 on odd ones — while a message is sent to every session during each move. Times:
//     worker ready → its share held; signal → every session held here again. Every acknowledged
//     message must be answered exactly once.
//  2. capacityCurve: one, two, then three processes on this machine (this one and workers), with
//     0…N background sessions (adaptive pacing) whose users each send a message every 10 s; a probe
//     message at a time (for at least 30 s) to probe sessions spread over the processes; message →
//     reply stored, p50 and p99, against the same figure with no background sessions. Also
//     Subconscious cycles per second over that window and the sessions each process holds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LayerModelConfig } from '../lib/config/model-config';
import { Cluster } from '../lib/engine/cluster';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { closeDb, getDb } from '../lib/store/db';
import { startPostgres } from '../test/support/postgres';
import { startWorker, type WorkerProcess } from '../test/support/worker-process';
import { startFakeProcess } from './fake-process';
import { formatMs, median, percentile } from './stats';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(what: string, probe: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** A PostgreSQL, the fake model in its own process, a data folder with the iris persona. */
async function clusterSetup(port: number) {
  const fake = await startFakeProcess(port, 5);
  const database = await startPostgres();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-cluster-bench-'));
  fs.mkdirSync(path.join(root, 'personas'));
  fs.copyFileSync('personas/iris.md', path.join(root, 'personas', 'iris.md'));
  const env = { AGENTCSD_DATA_DIR: path.join(root, 'data'), AGENTCSD_PERSONAS_DIR: path.join(root, 'personas'), AGENTCSD_DATABASE_URL: database.url };
  Object.assign(process.env, env);
  const db = await getDb();
  const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 256, endpoint: `http://127.0.0.1:${port}/v1` });
  const holders = async () => {
    const rows = await db.$queryRawUnsafe<{ session_id: string; owner: string }[]>(
      `SELECT l.session_id, l.owner FROM session_leases l JOIN sessions s ON s.id = l.session_id WHERE s.status = 'active'`,
    );
    return new Map(rows.map((row) => [row.session_id, row.owner]));
  };
  const replied = (sessionId: string, text: string) =>
    until(`the reply to "${text}"`, () => db.message.count({ where: { sessionId, tag: 'ED_agent', content: `You said: ${text}` } }), (n) => n > 0);
  const newSession = async (here: Orchestrator) => (await here.createSession({ persona: 'iris', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } })).id;
  return {
    env,
    db,
    url: database.url,
    holders,
    replied,
    newSession,
    async stop() {
      await closeDb();
      for (const key of Object.keys(env)) delete process.env[key];
      await database.stop();
      await fake.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface RebalanceRound {
  leave: 'SIGTERM' | 'SIGKILL';
  joinMs: number;
  leaveMs: number;
  taken: number;
}

export async function rebalanceRounds(count: number, sessions = 8) {
  const setup = await clusterSetup(3322);
  const here = new Orchestrator({ cluster: new Cluster({ url: setup.url, owner: 'rebalance-home' }) });
  const sent: { id: string; text: string }[] = [];
  let refused = 0;
  // A message is acknowledged when sendUserMessage returns; one refused (its holder just died and
  // had taken the call) is sent again, as a person would.
  const send = async (id: string, text: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await here.sendUserMessage(id, { text });
        sent.push({ id, text });
        return;
      } catch (error) {
        refused++;
        if (Date.now() > deadline) throw error;
        await sleep(250);
      }
    }
  };
  const rounds: RebalanceRound[] = [];
  try {
    await here.start();
    const ids: string[] = [];
    for (let index = 0; index < sessions; index++) ids.push(await setup.newSession(here));
    for (let round = 0; round < count; round++) {
      const name = `rebalance-worker-${round}`;
      const worker = await startWorker({ ...setup.env, AGENTCSD_EXECUTOR_ID: name });
      const joined = performance.now();
      const joinTexts = ids.map((id) => `join ${round} ${id.slice(0, 6)}`);
      const joinSends = Promise.all(ids.map((id, index) => send(id, joinTexts[index]!)));
      const held = await until('the worker to take its share', setup.holders, (map) => [...map.values()].filter((owner) => owner === name).length === sessions / 2);
      const joinMs = performance.now() - joined;
      await joinSends;
      for (const [index, id] of ids.entries()) await setup.replied(id, joinTexts[index]!);
      const leave = round % 2 === 0 ? 'SIGTERM' : 'SIGKILL';
      const left = performance.now();
      if (leave === 'SIGKILL') await worker.kill();
      else {
        const exited = new Promise((resolve) => worker.child.once('exit', resolve));
        worker.child.kill('SIGTERM');
        await exited;
      }
      const leaveTexts = ids.map((id) => `leave ${round} ${id.slice(0, 6)}`);
      const leaveSends = Promise.all(ids.map((id, index) => send(id, leaveTexts[index]!)));
      await until('the sessions back here', setup.holders, (map) => [...map.values()].every((owner) => owner === 'rebalance-home'));
      const leaveMs = performance.now() - left;
      await leaveSends;
      for (const [index, id] of ids.entries()) await setup.replied(id, leaveTexts[index]!);
      rounds.push({ leave, joinMs, leaveMs, taken: [...held.values()].filter((owner) => owner === name).length });
      console.error(`rebalance round ${round + 1}/${count}: share taken in ${joinMs.toFixed(0)} ms, back after ${leave} in ${leaveMs.toFixed(0)} ms`);
    }
    await sleep(1_000);
    let once = 0;
    for (const message of sent) {
      const users = await setup.db.message.count({ where: { sessionId: message.id, tag: 'ED_user', content: message.text } });
      const replies = await setup.db.message.count({ where: { sessionId: message.id, tag: 'ED_agent', content: `You said: ${message.text}` } });
      if (users === 1 && replies === 1) once++;
    }
    return { rounds, sent: sent.length, answeredOnce: once, refused };
  } finally {
    await here.stop();
    await setup.stop();
  }
}

export function rebalanceTable(result: Awaited<ReturnType<typeof rebalanceRounds>>): string {
  const join = result.rounds.map((round) => round.joinMs);
  const term = result.rounds.filter((round) => round.leave === 'SIGTERM').map((round) => round.leaveMs);
  const kill = result.rounds.filter((round) => round.leave === 'SIGKILL').map((round) => round.leaveMs);
  return [
    '| measure | value |',
    '|---|---|',
    `| rounds (a worker joins, then leaves) | ${result.rounds.length} (${term.length} Ctrl-C, ${kill.length} kill -9) |`,
    `| sessions the joining worker took (of 8) | ${[...new Set(result.rounds.map((round) => round.taken))].join(', ')} |`,
    `| worker ready → its share held (median / max ms) | ${median(join).toFixed(0)} / ${Math.max(...join).toFixed(0)} |`,
    `| Ctrl-C → every session held by the other (median / max ms) | ${term.length ? `${median(term).toFixed(0)} / ${Math.max(...term).toFixed(0)}` : '—'} |`,
    `| kill -9 → every session held by the other (median / max ms; lease 5 s) | ${kill.length ? `${median(kill).toFixed(0)} / ${Math.max(...kill).toFixed(0)}` : '—'} |`,
    `| messages acknowledged during the moves / answered exactly once | ${result.sent} / ${result.answeredOnce} |`,
    `| sends refused and repeated (never acknowledged) | ${result.refused} |`,
  ].join('\n');
}

export interface CapacityPoint {
  processes: number;
  background: number;
  p50: number;
  p99: number;
  cyclesPerSecond: number;
  held: number[];
}

export async function capacityCurve(options: { processes: number[]; loads: number[]; probes: number; windowMs: number; messageEveryMs: number }) {
  const setup = await clusterSetup(3323);
  const points: CapacityPoint[] = [];
  try {
    for (const count of options.processes) {
      const here = new Orchestrator({ cluster: new Cluster({ url: setup.url, owner: 'capacity-home' }) });
      await here.start();
      const workers: WorkerProcess[] = [];
      for (let index = 1; index < count; index++) workers.push(await startWorker({ ...setup.env, AGENTCSD_EXECUTOR_ID: `capacity-worker-${index}` }));
      const probes: string[] = [];
      for (let index = 0; index < count * 2; index++) probes.push(await setup.newSession(here));
      const background: string[] = [];
      for (const load of options.loads) {
        while (background.length < load) background.push(await setup.newSession(here));
        const total = probes.length + background.length;
        await until('every session held and spread', setup.holders, (map) => map.size === total && new Set(map.values()).size === count, 120_000);
        let chatting = true;
        let sentToBackground = 0;
        const chatter = (async () => {
          while (chatting && background.length > 0) {
            const id = background[sentToBackground++ % background.length]!;
            void here.sendUserMessage(id, { text: `busy ${sentToBackground}` }).catch(() => undefined);
            await sleep(options.messageEveryMs / background.length);
          }
        })();
        await sleep(3_000);
        const since = new Date();
        const started = performance.now();
        const latencies: number[] = [];
        // At least `probes` probes and at least `windowMs`: a Subconscious cycle gives way to replies
        // for up to 10 s, so a shorter window would count the cycles it delayed as none.
        for (let index = 0; index < options.probes || performance.now() - started < options.windowMs; index++) {
          const id = probes[index % probes.length]!;
          const text = `probe ${count} ${load} ${index}`;
          const sent = performance.now();
          await here.sendUserMessage(id, { text });
          await setup.replied(id, text);
          latencies.push(performance.now() - sent);
        }
        const seconds = (performance.now() - started) / 1000;
        chatting = false;
        await chatter;
        const cycles = await setup.db.message.count({ where: { tag: 'S_loud', createdAt: { gte: since } } });
        const counts = new Map<string, number>();
        for (const owner of (await setup.holders()).values()) counts.set(owner, (counts.get(owner) ?? 0) + 1);
        points.push({ processes: count, background: load, p50: median(latencies), p99: percentile(latencies, 99), cyclesPerSecond: cycles / seconds, held: [...counts.values()].sort((a, b) => b - a) });
        console.error(`capacity: ${count} process(es), ${load} background sessions: p99 ${percentile(latencies, 99).toFixed(0)} ms`);
      }
      for (const worker of workers) await worker.kill();
      await here.stop();
      await setup.db.$executeRawUnsafe('DELETE FROM sessions');
    }
    return points;
  } finally {
    await setup.stop();
  }
}

export function capacityTable(points: CapacityPoint[]): string {
  const idle = new Map(points.filter((point) => point.background === 0).map((point) => [point.processes, point.p99]));
  const rows = points.map((point) => {
    const ratio = point.p99 / (idle.get(point.processes) ?? point.p99);
    return `| ${point.processes} | ${point.background} | ${point.held.join(' / ')} | ${formatMs(point.p50)} | ${formatMs(point.p99)} | ${ratio.toFixed(2)}× | ${point.cyclesPerSecond.toFixed(1)} |`;
  });
  const capacity = [...new Set(points.map((point) => point.processes))].map((processes) => {
    const measured = points.filter((point) => point.processes === processes);
    const within = measured.filter((point) => point.p99 <= 1.2 * (idle.get(processes) ?? Infinity));
    const most = Math.max(0, ...within.map((point) => point.background));
    const all = within.length === measured.length ? '≥ ' : '';
    return `${processes}: ${all}${most} (${all}${Math.floor(most / processes)} per process)`;
  });
  return [
    '| processes | background sessions | held per process (incl. probes) | message → reply p50 ms | p99 ms | p99 / idle p99 | S cycles/s |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Most background sessions measured with p99 within 1.2× of the same processes idle — ${capacity.join('; ')}.`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('cluster.ts')) {
  const quick = process.argv.includes('--quick');
  const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  if (only !== 'capacity') {
    console.log('## More processes: rebalance rounds\n');
    console.log(rebalanceTable(await rebalanceRounds(quick ? 2 : 20)));
  }
  if (only === 'rebalance') process.exit(0);
  console.log('\n## More processes: capacity curve\n');
  console.log(capacityTable(await capacityCurve({ processes: [1, 2, 3], loads: quick ? [0, 20] : [0, 50, 100, 200, 400], probes: quick ? 10 : 30, windowMs: quick ? 5_000 : 30_000, messageEveryMs: 10_000 })));
}
