// A stop landing mid-step (issue 73 §1): `npm run bench:handover [-- --rounds=N]`. PostgreSQL +
// DBOS; a compiled worker ("web") holds a session whose task is running, and the fake model holds
// the call of the round's step; then the web gets SIGTERM (Ctrl-C, step 2 of docs/cluster.md's
// rolling upgrade) or SIGKILL (a crash), alternately. This process (capacity 0: it holds sessions
// only when no one else can) takes the session and the run. Measured side by side in one run:
// signal → the held step asked of the model again here (the step continuing elsewhere), and
// signal → the task completed. Every round must complete with finish_task once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster } from '../lib/engine/cluster';
import { DbosEngine } from '../lib/engine/dbos-engine';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { closeDb, getDb } from '../lib/store/db';
import { submitTaskSchema } from '../lib/store/task-types';
import { findTask } from '../lib/store/tasks-repository';
import { listToolCalls } from '../lib/store/tool-calls-repository';
import { buildServerBundle } from '../test/support/compiled-server';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server';
import type { FakeReply, FakeRequest } from '../test/fakes/fake-server-core';
import { rounds, taskPrompt, taskScript } from '../test/fakes/task-script';
import { startPostgres } from '../test/support/postgres';
import { startCompiledWorker, type WorkerProcess } from '../test/support/worker-process';
import { until } from './cluster';
import { formatMs, median } from './stats';

const ROUNDS = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length) ?? 6);
const HOLD_AT = 2;
const FINISH_AT = 3;

/** Per task (its goal names the round): when the held step was first and last asked of the model. */
const asks = new Map<string, number[]>();
function script(request: FakeRequest): FakeReply {
  const task = taskPrompt(request);
  if (task === null) return taskScript(request);
  const step = Number(/step (\d+) of at most/.exec(task)?.[1] ?? '0');
  const round = /Round (\d+)/.exec(task)?.[1] ?? '?';
  if (step === HOLD_AT && rounds(request.body) === 0) {
    const times = asks.get(round) ?? [];
    times.push(performance.now());
    asks.set(round, times);
    if (times.length === 1) return { ...taskScript(request), holdMs: 120_000 };
  }
  if (step >= FINISH_AT && rounds(request.body) === 0) return { text: '', toolCalls: [{ name: 'finish_task', input: { result: `finished at step ${step}` } }] };
  return taskScript(request);
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-handover-bench-'));
  fs.mkdirSync(path.join(root, 'personas'));
  fs.writeFileSync(path.join(root, 'personas', 'tester.md'), '# Tester\n');
  fs.chmodSync(root, 0o755);
  const bundle = await buildServerBundle('handover');
  const database = await startPostgres();
  const fake = await startFakeOpenAIServer({ script, chunkDelayMs: 5 });
  const env = { AGENTCSD_DATA_DIR: path.join(root, 'data'), AGENTCSD_PERSONAS_DIR: path.join(root, 'personas'), AGENTCSD_DATABASE_URL: database.url };
  Object.assign(process.env, env);
  const db = await getDb();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  const startWeb = () => startCompiledWorker(bundle.file, { ...env, AGENTCSD_EXECUTOR_ID: 'bench-web', AGENTCSD_ENGINE: 'dbos', AGENTCSD_TASK_STEP_DELAY_MS: '50' });
  const engine = new DbosEngine({ systemDatabaseUrl: database.url, executorId: 'bench-worker', clustered: true });
  const here = new Orchestrator({ engine, cluster: new Cluster({ url: database.url, owner: 'bench-worker', capacity: 0 }), taskWorkingDelayMs: 50 });
  await engine.launch();
  await here.start();
  const ownerOf = async (sessionId: string) => (await db.$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM session_leases WHERE session_id = $1', sessionId))[0]?.owner;
  const results: { signal: NodeJS.Signals; continuedMs: number; completedMs: number; ok: boolean }[] = [];
  let web: WorkerProcess = await startWeb();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const signal: NodeJS.Signals = round % 2 === 0 ? 'SIGTERM' : 'SIGKILL';
      const session = await here.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
      await until('the web to hold the session', () => ownerOf(session.id), (owner) => owner === 'bench-web', 30_000);
      const task = await here.tasks.submit(session.id, submitTaskSchema.parse({ goal: `Round ${round} [[forever]]`, constraints: { max_steps: FINISH_AT + 3 } }));
      await until('the held step', () => asks.get(String(round))?.length ?? 0, (n) => n === 1);
      const exited = new Promise((resolve) => web.child.once('exit', resolve));
      const sent = performance.now();
      web.child.kill(signal);
      await exited;
      const again = await until('the step asked again', () => asks.get(String(round))?.[1], (at) => at !== undefined);
      const ended = await until('the task to end', () => findTask(task.id), (found) => ['completed', 'failed', 'cancelled'].includes(found!.status));
      const completedMs = performance.now() - sent;
      const finishes = (await listToolCalls({ sessionId: session.id })).filter((call) => call.name === 'finish_task' && call.status === 'succeeded').length;
      results.push({ signal, continuedMs: again! - sent, completedMs, ok: ended!.status === 'completed' && finishes === 1 });
      console.log(`round ${round}: ${signal} → step continued here in ${formatMs(again! - sent)} ms, task ${ended!.status} in ${formatMs(completedMs)} ms, finish_task ×${finishes}`);
      await here.pauseSession(session.id);
      web = await startWeb();
    }
  } finally {
    await web.kill();
    await here.stop();
    await fake.close();
    await closeDb();
    await database.stop();
    fs.rmSync(root, { recursive: true, force: true });
    bundle.remove();
  }
  console.log('\n| stop | rounds | signal → step continued elsewhere, median ms | signal → task completed, median ms | completed once |');
  console.log('|---|---|---|---|---|');
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const of = results.filter((result) => result.signal === signal);
    if (of.length === 0) continue;
    console.log(`| ${signal === 'SIGTERM' ? 'Ctrl-C / SIGTERM' : 'kill -9'} | ${of.length} | ${formatMs(median(of.map((r) => r.continuedMs)))} | ${formatMs(median(of.map((r) => r.completedMs)))} | ${of.filter((r) => r.ok).length}/${of.length} |`);
  }
  process.exit(results.every((result) => result.ok) ? 0 : 1);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
