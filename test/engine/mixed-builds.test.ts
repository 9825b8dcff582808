// Upgrades and mixed builds never strand work (issue 60), with real processes on PostgreSQL and the
// durable engine. (a) `npm run start:worker`'s compiled server beside `npm run worker`'s tsx one —
// DBOS's own version, a hash of the printed workflow code, told them apart, so a task whose holder
// was killed stayed `running` for ever: the holder killed with SIGKILL and started again at once,
// in both directions, the other one finishes the task, each step once. (b) An upgrade: a task
// started by one release (AGENTCSD_APP_VERSION names it, as a changed source would change the
// computed one — app-version.test.ts), the process killed, the next release started: the task
// completes once and its trace says it continued after the upgrade. (c) A run whose workflow the
// running release no longer has ends its task `failed` with the reason — never `running` for ever.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { adoptRuns, runningElsewhere } from '@/lib/engine/run-versions';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { findTask, insertTask } from '@/lib/store/tasks-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { defaultParams } from '@/lib/config/model-config';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { serverBuildOptions } from '@/scripts/build-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import { rounds, taskPrompt, taskScript } from '@/test/fakes/task-script';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startCompiledWorker, startWorker, type WorkerProcess } from '@/test/support/worker-process';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const bundleDir = path.resolve(`test-results/bundle-${process.pid}`);
let database: TestPostgres;
let fake: FakeOpenAIServer;
let here: Orchestrator | null = null;
const workers: WorkerProcess[] = [];
/** Steps whose first model call the fake holds (case e): a stop lands while it waits; when each began. */
const holds = new Map<number, number | null>();

/** The task script; a step named in `holds` has its first call answered 1.5 s late, once. */
function script(request: FakeRequest): FakeReply {
  const step = Number(/step (\d+) of at most/.exec(taskPrompt(request) ?? '')?.[1] ?? '0');
  if (holds.get(step) === null && rounds(request.body) === 0) {
    holds.set(step, Date.now());
    return { ...taskScript(request), holdMs: 1_500 };
  }
  return taskScript(request);
}

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755); // the sandbox's user reads the workspace
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  fake = await startFakeOpenAIServer({ script, chunkDelayMs: 5 });
  await getDb();
  // `npm run build`'s server step, into a folder of this test's own.
  await build({ ...serverBuildOptions, outdir: bundleDir, logLevel: 'error' });
  await startObserver();
}, 90_000);

/** This process only submits and watches: capacity 0, it holds no session while a worker runs. */
async function startObserver(): Promise<Orchestrator> {
  const engine = new DbosEngine({ systemDatabaseUrl: database.url, executorId: 'observer', clustered: true });
  here = new Orchestrator({ engine, cluster: new Cluster({ url: database.url, owner: 'observer', capacity: 0 }), taskWorkingDelayMs: 400 });
  await engine.launch();
  await here.start();
  return here;
}

/** The observer leaves: the workers are the only processes left to continue a run. */
async function stopObserver(): Promise<void> {
  await here?.stop();
  here = null;
}

/** A graceful stop (SIGTERM, as Ctrl-C or a supervisor sends): the process ends by itself, cleanly. */
async function terminate(worker: WorkerProcess): Promise<void> {
  const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
  worker.child.kill('SIGTERM');
  expect(await exited, worker.output().slice(-2000)).toBe(0);
}

// Each case's processes end with it, whatever its outcome (a live one would take the next case's work).
// A failed case prints what its processes said (a run left `running` is explained there).
afterEach(async (context) => {
  const failed = context.task.result?.state === 'fail';
  for (const worker of workers.splice(0)) {
    await worker.kill();
    if (failed) console.log(`--- a worker's output ---\n${worker.output().slice(-6000)}`);
  }
});

afterAll(async () => {
  await here?.stop();
  await fake?.close();
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
  fs.rmSync(bundleDir, { recursive: true, force: true });
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` });
const MAX_STEPS = 6;
const env = (owner: string, extra: Record<string, string> = {}) => ({
  AGENTCSD_EXECUTOR_ID: owner,
  AGENTCSD_ENGINE: 'dbos',
  AGENTCSD_TASK_STEP_DELAY_MS: '300',
  AGENTCSD_DATA_DIR: dirs.dataDir,
  AGENTCSD_PERSONAS_DIR: dirs.personasDir,
  ...extra,
});
type Kind = 'compiled' | 'tsx';
async function start(kind: Kind, owner: string, extra: Record<string, string> = {}): Promise<WorkerProcess> {
  const worker = kind === 'compiled' ? await startCompiledWorker(path.join(bundleDir, 'server.mjs'), env(owner, extra)) : await startWorker(env(owner, extra));
  workers.push(worker);
  return worker;
}

const ownerOf = async (sessionId: string) => (await (await getDb()).$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM session_leases WHERE session_id = $1', sessionId))[0]?.owner;

async function dbos<T extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A new session that `holderName` holds (sessions spread by weight: a few are made until one lands there). */
async function sessionHeldBy(holderName: string): Promise<string> {
  for (let attempt = 0; attempt < 12; attempt++) {
    const session = await here!.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await vi.waitFor(async () => expect(await ownerOf(session.id)).toBeTruthy(), { timeout: 20_000, interval: 100 });
    if ((await ownerOf(session.id)) === holderName) return session.id;
    await here!.pauseSession(session.id);
  }
  throw new Error(`no session landed on ${holderName}: ${JSON.stringify(await dbos('SELECT owner, capacity, left_at, app_version FROM cluster_members', []))}`);
}

/**
 * A task on a session `holder` holds, killed once it has done two steps (`beforeKill` first, then
 * `restart` started at once); it must end once, each step once.
 */
async function killMidTask(holder: WorkerProcess, holderName: string, restart: () => Promise<unknown>, beforeKill?: () => Promise<void>): Promise<{ taskId: string; notes: string[] }> {
  const session = { id: await sessionHeldBy(holderName) };
  const task = await here!.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Keep looking [[forever]]', constraints: { max_steps: MAX_STEPS } }));
  await vi.waitFor(async () => expect((await findTask(task.id))!.stepsUsed).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 100 });
  await beforeKill?.();
  await holder.kill();
  await restart();
  // The takeover waits out the dead holder's lease and DBOS's recovery: a minute and more on a loaded machine.
  await vi.waitFor(async () => expect((await findTask(task.id))!.status).toBe('failed'), { timeout: 100_000, interval: 200 });
  const ended = (await findTask(task.id))!;
  expect(ended).toMatchObject({ stepsUsed: MAX_STEPS, error: `max steps reached: ${MAX_STEPS} of ${MAX_STEPS}` });
  const greps = (await listToolCalls({ sessionId: session.id })).filter((call) => call.name === 'grep');
  expect(new Set(greps.map((call) => call.argsHash)).size).toBe(greps.length); // no step ran its grep twice
  const steps = await dbos<{ function_name: string }>('SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id', [task.id]);
  expect(steps.map((row) => row.function_name).filter((name) => name.startsWith('step-'))).toEqual(Array.from({ length: MAX_STEPS }, (_, index) => `step-${index}`));
  expect((await dbos<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', [task.id]))[0]?.status).toBe('SUCCESS');
  await (await getDb()).session.update({ where: { id: session.id }, data: { status: 'paused' } }); // done: it counts on nobody's share
  return { taskId: task.id, notes: ended.notes };
}

describe('mixed builds and upgrades on the durable engine', () => {
  it('(a) the compiled server and the tsx one are one version: a holder killed and restarted at once, the other finishes its task — both directions', async () => {
    // Capacities: the observer holds nothing while a worker runs; the workers share what they hold.
    const built = await start('compiled', 'built-a', { AGENTCSD_CAPACITY: '1' });
    const typed = await start('tsx', 'tsx-b', { AGENTCSD_CAPACITY: '0.01' });
    const versions = await dbos<{ app_version: string }>('SELECT DISTINCT app_version FROM cluster_members WHERE left_at IS NULL', []);
    expect(versions).toHaveLength(1); // the observer, the bundle and tsx: one version
    const first = await killMidTask(built, 'built-a', () => start('compiled', 'built-a', { AGENTCSD_CAPACITY: '0.01' }));
    expect(first.notes).toEqual([]); // the same version: nothing was carried
    // The other way: the tsx one holds now; killed, the compiled one continues.
    const second = await killMidTask(typed, 'tsx-b', () => start('tsx', 'tsx-b', { AGENTCSD_CAPACITY: '0.01' }));
    expect(second.notes).toEqual([]);
  }, 300_000);

  it('(e) a rolling upgrade as docs/cluster.md says, each stop landing mid-step: the task ends once, each step once, steps_used never back, the upgrade noted', async () => {
    const first = await start('tsx', 'roll-a', { AGENTCSD_APP_VERSION: 'release-1', AGENTCSD_CAPACITY: '1' });
    const second = await start('tsx', 'roll-b', { AGENTCSD_APP_VERSION: 'release-1', AGENTCSD_CAPACITY: '0.01' });
    const sessionId = await sessionHeldBy('roll-a');
    // Every value steps_used takes, in order, as PostgreSQL writes it.
    await dbos(
      `CREATE TABLE IF NOT EXISTS roll_steps (at bigserial PRIMARY KEY, task_id text, steps int);
       CREATE OR REPLACE FUNCTION note_roll_steps() RETURNS trigger AS $$ BEGIN
         IF NEW.steps_used IS DISTINCT FROM OLD.steps_used THEN INSERT INTO roll_steps (task_id, steps) VALUES (NEW.id, NEW.steps_used); END IF;
         RETURN NEW; END $$ LANGUAGE plpgsql;
       CREATE OR REPLACE TRIGGER note_roll_steps AFTER UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION note_roll_steps();`,
      [],
    );
    holds.set(2, null);
    holds.set(4, null);
    const task = await here!.tasks.submit(sessionId, submitTaskSchema.parse({ goal: 'Keep looking [[forever]]', constraints: { max_steps: MAX_STEPS } }));
    await stopObserver(); // only the release's own processes continue the run
    await vi.waitFor(() => expect(holds.get(2)).not.toBeNull(), { timeout: 30_000, interval: 50 });
    // Step 2 of the upgrade: stop the first process while step 2's model call runs; the other (the old release) takes the session and the step.
    await terminate(first);
    await vi.waitFor(async () => expect(await ownerOf(sessionId)).toBe('roll-b'), { timeout: 20_000, interval: 100 });
    // Step 3: it starts again on the new release.
    await start('compiled', 'roll-a', { AGENTCSD_APP_VERSION: 'release-2', AGENTCSD_CAPACITY: '1' });
    // Step 4: the last process of the old release stops while step 4's call runs; the new release continues the run.
    await vi.waitFor(() => expect(holds.get(4)).not.toBeNull(), { timeout: 30_000, interval: 50 });
    await terminate(second);
    await vi.waitFor(async () => expect((await findTask(task.id))!.status).toBe('failed'), { timeout: 90_000, interval: 200 });

    const ended = (await findTask(task.id))!;
    expect(ended).toMatchObject({ stepsUsed: MAX_STEPS, error: `max steps reached: ${MAX_STEPS} of ${MAX_STEPS}` });
    expect(ended.notes).toEqual(['continued after an upgrade from version release-1 to release-2, at its last finished step']);
    expect(await ownerOf(sessionId)).toBe('roll-a');
    // Each step's grep ran once — but a held step whose turn the stop cut before its answer was
    // recorded is asked again by the next holder, and greps again (read-only; recorded in the notes).
    const greps = (await listToolCalls({ sessionId })).filter((call) => call.name === 'grep');
    const byStep = Object.fromEntries(Array.from({ length: MAX_STEPS }, (_, index) => [index + 1, greps.filter((call) => (call.args as { pattern?: string }).pattern === `step-${index + 1}`).length]));
    for (const [step, count] of Object.entries(byStep)) expect(count, JSON.stringify(byStep)).toBe(holds.has(Number(step)) ? Math.min(Math.max(count, 1), 2) : 1);
    const steps = await dbos<{ function_name: string }>('SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id', [task.id]);
    expect(steps.map((row) => row.function_name).filter((name) => name.startsWith('step-'))).toEqual(Array.from({ length: MAX_STEPS }, (_, index) => `step-${index}`));
    const seen = (await dbos<{ steps: number }>('SELECT steps FROM roll_steps WHERE task_id = $1 ORDER BY at', [task.id])).map((row) => row.steps);
    expect(seen).toEqual(Array.from({ length: MAX_STEPS }, (_, index) => index + 1));
    await (await getDb()).session.update({ where: { id: sessionId }, data: { status: 'paused' } }); // done: it counts on nobody's share
    holds.clear();
  }, 240_000);

  it('(b) an upgrade: the next release continues the task from its last finished step and says so in its trace', async () => {
    here ??= await startObserver();
    const old = await start('tsx', 'release-host', { AGENTCSD_APP_VERSION: 'release-1', AGENTCSD_CAPACITY: '1' });
    // The observer leaves first: the next release is the only process left to continue the task.
    const { notes } = await killMidTask(old, 'release-host', () => start('compiled', 'release-host', { AGENTCSD_APP_VERSION: 'release-2', AGENTCSD_CAPACITY: '1' }), stopObserver);
    expect(notes).toEqual(['continued after an upgrade from version release-1 to release-2, at its last finished step']);
  }, 180_000);

  it('(c) a run whose workflow the running release no longer has ends its task failed with the reason', async () => {
    // What an old release left: an active session, its task running under a workflow this release
    // does not have, the process that ran it gone.
    const sessionId = crypto.randomUUID();
    await insertSession({ id: sessionId, name: 'old', personaName: 'tester', personaHash: 'h', models: { c_model: layer(), s_model: layer() }, params: defaultParams, status: 'active' });
    const task = await insertTask({ id: crypto.randomUUID(), sessionId, goal: 'An old kind of task', context: null, constraints: submitTaskSchema.parse({ goal: 'x' }).constraints, traceId: crypto.randomUUID() });
    await (await getDb()).task.update({ where: { id: task.id }, data: { status: 'running' } });
    await dbos(
      `INSERT INTO dbos.workflow_status (workflow_uuid, status, name, class_name, config_name, executor_id, application_version, application_id, created_at, updated_at)
       VALUES ($1, 'PENDING', 'task.retired', '', '', 'gone-host', 'release-0', '', 0, 0)`,
      [task.id],
    );
    await start('tsx', 'retire-host', { AGENTCSD_CAPACITY: '1' });
    await vi.waitFor(async () => expect((await findTask(task.id))!.status).toBe('failed'), { timeout: 30_000, interval: 200 });
    expect((await findTask(task.id))!.error).toMatch(/^could not continue after an upgrade: it was started by version release-0, and this version \(.+\) has no workflow "task\.retired" to continue it$/);
    expect((await dbos<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', [task.id]))[0]?.status).toBe('ERROR');
  }, 120_000);

  it('(d) the holder of a session takes a run a live member parked at its restart, never one a live member runs', async () => {
    // A restart parks its runs before it joins; meanwhile another member took the session over. The
    // restarted one holds it no more and never takes the run back: the holder must (a CI run once
    // left such a task running for ever).
    const [parked, running] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const [id, executor] of [[parked, 'parked:restarted'], [running, 'restarted']])
      await dbos(
        `INSERT INTO dbos.workflow_status (workflow_uuid, status, name, class_name, config_name, executor_id, application_version, application_id, created_at, updated_at)
         VALUES ($1, 'PENDING', 'task.run', '', '', $2, 'v1', '', 0, 0)`,
        [id, executor],
      );
    const queue = `nobody-listens-${process.pid}`; // moved there, never dispatched
    const { moved } = await adoptRuns(database.url, {
      queue,
      executor: 'holder',
      executors: [],
      notExecutors: runningElsewhere('holder', ['holder', 'restarted']),
      version: 'v1',
      liveVersions: ['v1'],
      names: ['task.run'],
      ids: [parked, running],
      prefixes: [],
    });
    expect(moved).toEqual([parked]);
    const rows = await dbos<{ workflow_uuid: string; status: string; executor_id: string }>('SELECT workflow_uuid, status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)', [[parked, running]]);
    expect(Object.fromEntries(rows.map((row) => [row.workflow_uuid, `${row.status} ${row.executor_id}`]))).toEqual({ [parked]: 'ENQUEUED holder', [running]: 'PENDING restarted' });
    await dbos(`DELETE FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)`, [[parked, running]]);
  });
});
