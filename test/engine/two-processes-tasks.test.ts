// A task moves with its session (issue 19, requirements 2 and 5): two processes on one PostgreSQL,
// both on the durable engine — this test's process and a real `server.ts --worker`. The task is
// submitted here for a session the worker holds, so it runs there; the worker is killed with
// SIGKILL mid-task; this process takes the session and adopts the unfinished run, which goes on
// from its last finished step: each step's tool call ran once, one chat message per step, each
// step journaled once, and the task ends where an uninterrupted run ends.
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { findTask } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { useTaskCluster } from '@/test/support/task-cluster';
import { startWorker, type WorkerProcess } from '@/test/support/worker-process';

const { dirs, databaseUrl, layer } = useTaskCluster();
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;

afterAll(async () => {
  await worker?.kill();
  await here?.stop();
});

const MAX_STEPS = 8;

describe('a task across two processes on the durable engine', () => {
  it('runs in the worker that holds its session; the worker killed mid-task, it goes on here from its last finished step', async () => {
    worker = await startWorker({
      AGENTCSD_EXECUTOR_ID: 'worker-b',
      AGENTCSD_ENGINE: 'dbos',
      AGENTCSD_TASK_STEP_DELAY_MS: '400',
      AGENTCSD_DATA_DIR: dirs.dataDir,
      AGENTCSD_PERSONAS_DIR: dirs.personasDir,
    });
    const engine = new DbosEngine({ systemDatabaseUrl: databaseUrl(), executorId: 'process-a', clustered: true });
    // Capacity 0: this process holds no session while the worker runs (sessions spread by weight).
    here = new Orchestrator({ engine, cluster: new Cluster({ url: databaseUrl(), owner: 'process-a', capacity: 0 }), taskWorkingDelayMs: 400 });
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const owner = async () => (await (await getDb()).$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM session_leases WHERE session_id = $1', session.id))[0]?.owner;
    await vi.waitFor(async () => expect(await owner()).toBe('worker-b'), { timeout: 20_000 });
    await engine.launch();
    await here.start();

    // Submitted here, run there.
    const task = await here.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Keep looking [[forever]]', constraints: { max_steps: MAX_STEPS } }));
    await vi.waitFor(async () => expect((await findTask(task.id))!.stepsUsed).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 100 });
    expect(here.mindState(session.id)).toBeNull();
    await worker.kill();
    const atKill = (await findTask(task.id))!.stepsUsed;
    expect(atKill).toBeLessThan(MAX_STEPS);

    await vi.waitFor(async () => expect(await owner()).toBe('process-a'), { timeout: 15_000, interval: 200 });
    await vi.waitFor(async () => expect((await findTask(task.id))!.status).toBe('failed'), { timeout: 40_000, interval: 200 });
    const ended = (await findTask(task.id))!;
    expect(ended).toMatchObject({ stepsUsed: MAX_STEPS, error: `max steps reached: ${MAX_STEPS} of ${MAX_STEPS}` });

    const greps = (await listToolCalls({ sessionId: session.id })).filter((call) => call.name === 'grep');
    expect(greps.every((call) => ['succeeded', 'interrupted'].includes(call.status))).toBe(true);
    expect(new Set(greps.map((call) => call.argsHash)).size).toBe(greps.length); // no step ran its grep twice
    const said = (await (await getDb()).message.findMany({ where: { sessionId: session.id, tag: 'ED_agent' }, orderBy: { id: 'asc' } })).map((message) => message.content.match(/^Step (\d+):/)?.[1]);
    expect(said).toEqual(Array.from({ length: MAX_STEPS }, (_, index) => String(index + 1)));

    // DBOS's own record: the run finished here, each step journaled once.
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      const run = await client.query<{ status: string; executor_id: string }>('SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1', [task.id]);
      expect(run.rows[0]).toEqual({ status: 'SUCCESS', executor_id: 'process-a' });
      const steps = await client.query<{ function_name: string }>('SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id', [task.id]);
      const names = steps.rows.map((row) => row.function_name).filter((name) => name.startsWith('step-'));
      expect(names).toEqual(Array.from({ length: MAX_STEPS }, (_, index) => `step-${index}`));
    } finally {
      await client.end();
    }
  }, 120_000);
});
