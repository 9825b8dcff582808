// PostgreSQL down for 30 s while a task's step runs (issue 73 §3): a wait, not a failure. The
// real server is stopped (a fast shutdown, as an operator or a failover does) while the fake model
// holds step 2's call; the call answers during the outage, so the step's writes meet a database
// that is not there. The task must complete once the database is back — finish_task once, no
// error — and a message sent during the outage is refused with the outage's words (nothing
// taken), never Prisma's text. This process on DBOS, alone.
import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { storeFault } from '@/lib/store/store-faults';
import { submitTaskSchema } from '@/lib/store/task-types';
import { findTask } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import { rounds, taskPrompt, taskScript } from '@/test/fakes/task-script';
import { useClusterFixture } from '@/test/support/cluster-fixture';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const OUTAGE_MS = 30_000;
const HOLD_AT = 2;
const FINISH_AT = 3;
const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const cluster = useClusterFixture({ script, chunkDelayMs: 5 });
let held: number | null = null;

/** A grep per step; step HOLD_AT's first call answers 3 s late (inside the outage); finish_task at FINISH_AT. */
function script(request: FakeRequest): FakeReply {
  const task = taskPrompt(request);
  const step = Number(/step (\d+) of at most/.exec(task ?? '')?.[1] ?? '0');
  if (task !== null && step === HOLD_AT && rounds(request.body) === 0 && held === null) {
    held = Date.now();
    return { ...taskScript(request), holdMs: 3_000 };
  }
  if (task !== null && step >= FINISH_AT && rounds(request.body) === 0) return { text: '', toolCalls: [{ name: 'finish_task', input: { result: `finished at step ${step}` } }] };
  return taskScript(request);
}

const settled = async <T>(work: () => Promise<T>): Promise<T | null> => work().catch(() => null);

describe('PostgreSQL stopped for 30 s during a step', () => {
  it('the task waits and completes once; a message meanwhile gets the outage’s words', async () => {
    fs.chmodSync(dirs.root, 0o755);
    const errors: string[] = [];
    const error = console.error;
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      errors.push(args.map((arg) => (arg instanceof Error ? `${arg.message}` : String(arg))).join(' '));
      error(...args);
    });
    const engine = new DbosEngine({ systemDatabaseUrl: cluster.database.url, executorId: 'outage-alone' });
    const here = (cluster.here = new Orchestrator({ engine, taskWorkingDelayMs: 100 }));
    await engine.launch();
    await here.start();
    const session = await here.createSession({ persona: 'tester', models: { c_model: cluster.layer(), s_model: cluster.layer() } });
    const task = await here.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Count the lines [[forever]]', constraints: { max_steps: FINISH_AT + 3 } }));
    await expect.poll(() => held, { timeout: 30_000, interval: 50 }).not.toBeNull();

    const outage = cluster.database.outage(OUTAGE_MS);
    await new Promise((resolve) => setTimeout(resolve, 5_000)); // the held call has answered into the outage
    const refused = await here.sendUserMessage(session.id, { text: 'are you there?' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(storeFault(refused)).toBe('unreachable');
    await outage;

    await expect.poll(async () => (await settled(() => findTask(task.id)))?.status, { timeout: 90_000, interval: 250 }).toMatch(/completed|failed|cancelled/);
    const ended = (await findTask(task.id))!;
    expect(ended.error).toBeNull();
    expect(ended.status).toBe('completed');
    const finishes = (await listToolCalls({ sessionId: session.id })).filter((call) => call.name === 'finish_task' && call.status === 'succeeded');
    expect(finishes).toHaveLength(1);
    // Our own lines say what is down in words, never Prisma's text with a source excerpt.
    expect(errors.filter((line) => /Invalid `|invocation in/.test(line))).toEqual([]);
  }, 180_000);
});
