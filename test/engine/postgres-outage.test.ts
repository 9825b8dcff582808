// PostgreSQL down for 30 s while a task's step runs (issue 73 §3): a wait, not a failure. The
// real server is stopped (a fast shutdown, as an operator or a failover does) while the fake model
// holds step 2's call — or while step 2's command runs (a bash the session's rule allows) — and the
// call or the command ends during the outage, so the step's writes meet a database that is not there. The task must complete once the database is back — finish_task once, no
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
import { insertRule } from '@/lib/store/tool-rules-repository';
import { workspaceDirFor } from '@/lib/tools/workspace';
import path from 'node:path';
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
let during: 'model' | 'tool' = 'model';

/** A grep per step; step HOLD_AT's first call answers 3 s late, or runs a 6 s command (inside the outage); finish_task at FINISH_AT. */
function script(request: FakeRequest): FakeReply {
  const task = taskPrompt(request);
  const step = Number(/step (\d+) of at most/.exec(task ?? '')?.[1] ?? '0');
  if (task !== null && step === HOLD_AT && rounds(request.body) === 0 && held === null) {
    held = Date.now();
    if (during === 'tool') return { text: '<ID_loud>Counting slowly.</ID_loud>', toolCalls: [{ name: 'bash', input: { command: 'sleep 6 && echo once >> ran.txt', explanation: 'A slow count' } }] };
    return { ...taskScript(request), holdMs: 3_000 };
  }
  if (task !== null && step >= FINISH_AT && rounds(request.body) === 0) return { text: '', toolCalls: [{ name: 'finish_task', input: { result: `finished at step ${step}` } }] };
  return taskScript(request);
}

const settled = async <T>(work: () => Promise<T>): Promise<T | null> => work().catch(() => null);

describe('PostgreSQL stopped for 30 s during a step', () => {
  it.each(['model', 'tool'] as const)('during the step’s %s call: the task waits and completes once; a message meanwhile gets the outage’s words', async (where) => {
    during = where;
    held = null;
    fs.chmodSync(dirs.root, 0o755);
    const errors: string[] = [];
    const error = console.error;
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      errors.push(args.map((arg) => (arg instanceof Error ? `${arg.message}` : String(arg))).join(' '));
      error(...args);
    });
    const engine = new DbosEngine({ systemDatabaseUrl: cluster.database.url, executorId: `outage-${where}` });
    const here = (cluster.here = new Orchestrator({ engine, taskWorkingDelayMs: 100 }));
    await engine.launch();
    await here.start();
    const session = await here.createSession({ persona: 'tester', models: { c_model: cluster.layer(), s_model: cluster.layer() } });
    await insertRule({ scope: 'session', sessionId: session.id, tool: 'bash', effect: 'allow', matcher: { kind: 'tool' } });
    const task = await here.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Count the lines [[forever]]', constraints: { max_steps: FINISH_AT + 3 } }));
    await expect.poll(() => held, { timeout: 30_000, interval: 50 }).not.toBeNull();
    if (where === 'tool') await expect.poll(async () => (await listToolCalls({ sessionId: session.id })).find((call) => call.name === 'bash')?.status, { timeout: 30_000, interval: 50 }).toBe('running');

    const outage = cluster.database.outage(OUTAGE_MS);
    await new Promise((resolve) => setTimeout(resolve, 8_000)); // the held call, or the command, has ended into the outage
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
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.filter((call) => call.name === 'finish_task' && call.status === 'succeeded')).toHaveLength(1);
    if (where === 'tool') {
      // The command ran once, whatever its record says of the outage.
      expect(fs.readFileSync(path.join(workspaceDirFor(session.id, dirs.dataDir), 'ran.txt'), 'utf8')).toBe('once\n');
      expect(calls.filter((call) => call.name === 'bash')).toHaveLength(1);
    }
    // Our own lines say what is down in words, never Prisma's text with a source excerpt.
    expect(errors.filter((line) => /Invalid `|invocation in/.test(line))).toEqual([]);
    await here.stop();
    cluster.here = null;
    vi.restoreAllMocks();
  }, 180_000);
});
