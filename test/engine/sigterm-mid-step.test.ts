// A graceful stop while a task's step waits on the model (issue 73 §1): on PostgreSQL + DBOS, a
// "web" process (a real compiled `server.ts --worker`) holds a session whose task is running; the
// fake model holds the step's call, and the web gets SIGTERM, as step 2 of docs/cluster.md's rolling
// upgrade does. This test's process ("calm-worker", capacity 0) takes the session once the web
// leaves, and the run with it: the task completes, `finish_task` ran once, each step is journaled
// once, no step the model answered was asked again, and steps_used never went back while the
// survivor replayed the finished steps (issue 73 §6: it went 6 → 5 → 6 → 7). The run used to be recorded as ended
// (DBOS: SUCCESS) with its task open, and the task failed: "the task's run ended before the task did".
import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { submitTaskSchema } from '@/lib/store/task-types';
import { findTask } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import { rounds, taskPrompt, taskScript } from '@/test/fakes/task-script';
import { useClusterFixture } from '@/test/support/cluster-fixture';
import { useCompiledServer } from '@/test/support/compiled-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startCompiledWorker } from '@/test/support/worker-process';

const HOLD_AT = 3;
const FINISH_AT = 5;
// The call answers while the stop is under way (the minds get 3 s to finish): the step is done, its run must not be.
const HOLD_MS = 1_500;
const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const cluster = useClusterFixture({ script, chunkDelayMs: 5 });
const serverBundle = useCompiledServer('sigterm');
let held: number | null = null; // when the fake began holding step HOLD_AT's call
const asked = new Map<string, number>(); // each step's first round: how many times the model was asked it

/** A grep per step; step HOLD_AT's first call is held (until the caller goes); `finish_task` at FINISH_AT. */
function script(request: FakeRequest): FakeReply {
  const task = taskPrompt(request);
  const step = Number(/step (\d+) of at most/.exec(task ?? '')?.[1] ?? '0');
  if (task !== null && rounds(request.body) === 0) asked.set(`step ${step}`, (asked.get(`step ${step}`) ?? 0) + 1);
  if (task !== null && step === HOLD_AT && rounds(request.body) === 0 && held === null) {
    held = Date.now();
    return { ...taskScript(request), holdMs: HOLD_MS };
  }
  if (task !== null && step >= FINISH_AT && rounds(request.body) === 0) return { text: '', toolCalls: [{ name: 'finish_task', input: { result: `finished at step ${step}` } }] };
  return taskScript(request);
}

describe('SIGTERM of the process holding a task, mid-step', () => {
  it('hands the step over: the task completes, finish_task once, each step journaled once', async () => {
    fs.chmodSync(dirs.root, 0o755); // the sandbox's user reads the workspace
    const web = await startCompiledWorker(serverBundle, {
      AGENTCSD_EXECUTOR_ID: 'calm-web',
      AGENTCSD_ENGINE: 'dbos',
      AGENTCSD_TASK_STEP_DELAY_MS: '100',
      AGENTCSD_DATA_DIR: dirs.dataDir,
      AGENTCSD_PERSONAS_DIR: dirs.personasDir,
    });
    cluster.workers.push(web);
    const engine = new DbosEngine({ systemDatabaseUrl: cluster.database.url, executorId: 'calm-worker', clustered: true });
    const here = (cluster.here = new Orchestrator({ engine, cluster: new Cluster({ url: cluster.database.url, owner: 'calm-worker', capacity: 0 }), taskWorkingDelayMs: 100 }));
    await engine.launch();
    await here.start();
    const session = await here.createSession({ persona: 'tester', models: { c_model: cluster.layer(), s_model: cluster.layer() } });
    const client = new pg.Client({ connectionString: cluster.database.url });
    await client.connect();
    // Every value steps_used takes, in order, as PostgreSQL writes it.
    await client.query(`CREATE TABLE steps_seen (at bigserial PRIMARY KEY, task_id text, steps int);
      CREATE FUNCTION note_steps() RETURNS trigger AS $$ BEGIN
        IF NEW.steps_used IS DISTINCT FROM OLD.steps_used THEN INSERT INTO steps_seen (task_id, steps) VALUES (NEW.id, NEW.steps_used); END IF;
        RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER note_steps AFTER UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION note_steps();`);
    try {
      const ownerOf = async () => (await client.query<{ owner: string }>('SELECT owner FROM session_leases WHERE session_id = $1', [session.id])).rows[0]?.owner;
      await expect.poll(ownerOf, { timeout: 20_000, interval: 100 }).toBe('calm-web');
      const task = await here.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Count the lines [[forever]]', constraints: { max_steps: FINISH_AT + 4 } }));
      await expect.poll(() => held, { timeout: 30_000, interval: 50 }).not.toBeNull();

      const exited = new Promise<number | null>((resolve) => web.child.once('exit', (code) => resolve(code)));
      web.child.kill('SIGTERM');
      expect(await exited, web.output().slice(-2000)).toBe(0);
      await expect.poll(async () => (await findTask(task.id))!.status, { timeout: 60_000, interval: 100 }).toMatch(/completed|failed|cancelled/);

      const ended = (await findTask(task.id))!;
      expect(ended.error, web.output().slice(-2000)).toBeNull();
      expect(ended.status).toBe('completed');
      expect(await ownerOf()).toBe('calm-worker');
      const finishes = (await listToolCalls({ sessionId: session.id })).filter((call) => call.name === 'finish_task' && call.status === 'succeeded');
      expect(finishes).toHaveLength(1);
      const twice = await client.query<{ function_name: string }>(
        `SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name LIKE 'step-%' GROUP BY function_name HAVING COUNT(*) > 1`,
        [task.id],
      );
      expect(twice.rows).toEqual([]);
      // The held step answered inside the stop's grace: journaled and counted before the engine
      // stopped, so the survivor replays it — every step asked once, the held one too.
      expect(Object.fromEntries(asked)).toEqual({ 'step 1': 1, 'step 2': 1, 'step 3': 1, 'step 4': 1, 'step 5': 1 });
      expect(ended.stepsUsed).toBe(FINISH_AT);
      const seen = (await client.query<{ steps: number }>('SELECT steps FROM steps_seen WHERE task_id = $1 ORDER BY at', [task.id])).rows.map((row) => row.steps);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await client.end();
    }
  }, 180_000);
});
