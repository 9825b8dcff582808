// Issue 34, requirement 2, on the durable engine (DBOS on PostgreSQL): the process running the lead
// and its reviewer is killed with SIGKILL during the reviewer's step; an engine of the same executor
// recovers both runs and both finish (test/support/crew-crash.ts says what is checked).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { realClock } from '@/lib/clock/clock';
import { createEngine } from '@/lib/engine/create-engine';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { crewFake, crewKillRound, prepareCrew } from '@/test/support/crew-crash';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs();
let database: TestPostgres;
let fake: Awaited<ReturnType<typeof crewFake>>;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  await getDb();
  fake = await crewFake();
  await prepareCrew(fake.fake);
}, 60_000);
afterAll(async () => {
  await stopOrchestrator();
  await fake?.fake.close();
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

describe('a delegation killed mid-step (DBOS engine)', () => {
  it('kill -9 during the reviewer’s step: the same executor recovers both runs; the reviewer finishes and the lead finishes with its verdict', async () => {
    const engineEnv = { AGENTCSD_ENGINE: 'dbos' as const, AGENTCSD_DATABASE_URL: database.url, AGENTCSD_EXECUTOR_ID: 'crew-a', PORT: 3998 };
    await crewKillRound({
      fake,
      env: { AGENTCSD_DATA_DIR: dirs.dataDir, AGENTCSD_PERSONAS_DIR: dirs.personasDir, AGENTCSD_SKILLS_DIR: dirs.skillsDir, AGENTCSD_TASK_STEP_DELAY_MS: '100', ...engineEnv, PORT: '3998' },
      restart: async () => startOrchestrator({ taskWorkingDelayMs: 0, configured: await createEngine(engineEnv, realClock) }),
    });
  }, 150_000);
});
