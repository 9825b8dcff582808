// kill -9 of the real server while a task waits on a card and while a task is mid-run: after the
// restart the card is still there and approving it runs the call once and the task goes on; the
// running task continues from its last finished step, nothing is run twice, one chat message per
// step. Both engines: the default in-memory one (the task continues from its records) and DBOS on
// a PostgreSQL the spec starts (the run is recovered from its journal, finished steps answered
// from it). The rounds are e2e/support/task-kill-rounds.ts; the benchmark runs 20 of them.
import { expect, test } from '@playwright/test';
import { startPostgres, type TestPostgres } from '../test/support/postgres';
import { fakeLlmEndpoint } from './support/fake-models';
import { spawnServer } from './support/spawn-server';
import { cardKillRound, runningKillRound, type KillRoundSetup } from './support/task-kill-rounds';

const port = Number(process.env.E2E_TASK_CRASH_PORT ?? 3214);
const base = `http://127.0.0.1:${port}`;

let postgres: TestPostgres | null = null;
test.afterAll(async () => {
  await postgres?.stop();
});

async function setup(engine: 'memory' | 'dbos', root: string): Promise<KillRoundSetup> {
  let databaseUrl: string | undefined;
  if (engine === 'dbos') {
    postgres ??= await startPostgres();
    databaseUrl = postgres.urlFor(root.replace(/\W+/g, '_').toLowerCase());
  }
  const env = { AGENTCSD_TASK_STEP_DELAY_MS: '150', ...(databaseUrl && { AGENTCSD_ENGINE: 'dbos', AGENTCSD_DATABASE_URL: databaseUrl, AGENTCSD_EXECUTOR_ID: 'e2e-crash' }) };
  return {
    base,
    fakeEndpoint: fakeLlmEndpoint,
    databaseUrl,
    start: async () => {
      const server = await spawnServer({ root, port, env });
      expect(server.output()).toContain(engine === 'dbos' ? '> engine: DBOS on' : '> engine: in-memory');
      return server;
    },
  };
}

for (const engine of ['memory', 'dbos'] as const) {
  test(`${engine} engine: kill -9 while a task waits on a card: after the restart the card is there, approving runs it once, the task completes`, async () => {
    test.setTimeout(180_000);
    const round = await cardKillRound(await setup(engine, `test-results/e2e-task-crash-card-${engine}`));
    expect(round.failures).toEqual([]);
  });

  test(`${engine} engine: Ctrl-C (SIGTERM) while a step's model call runs, one process: after the start the task goes on by itself — no Resume — and nothing runs twice`, async () => {
    test.setTimeout(180_000);
    const round = await runningKillRound(await setup(engine, `test-results/e2e-task-crash-sigterm-${engine}`), { maxSteps: 8, killAfterSteps: 2, graceful: true });
    expect(round.failures).toEqual([]);
    expect(round.stepsAtKill).toBeLessThan(8);
  });

  test(`${engine} engine: kill -9 while a task runs: it continues from its last finished step after the restart and nothing runs twice`, async () => {
    test.setTimeout(180_000);
    const round = await runningKillRound(await setup(engine, `test-results/e2e-task-crash-running-${engine}`), { maxSteps: 10, killAfterSteps: 3 });
    expect(round.failures).toEqual([]);
    expect(round.stepsAtKill).toBeLessThan(10);
  });
}
