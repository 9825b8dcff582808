// Issue 34, requirement 2, on the in-memory engine and SQLite: the process running the lead and its
// reviewer is killed with SIGKILL during the reviewer's step; the next start brings both back and
// both finish (test/support/crew-crash.ts says what is checked).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { crewFake, crewKillRound, prepareCrew } from '@/test/support/crew-crash';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs();
let fake: Awaited<ReturnType<typeof crewFake>>;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  fake = await crewFake();
  await prepareCrew(fake.fake);
});
afterAll(async () => {
  await stopOrchestrator();
  await fake?.fake.close();
});

describe('a delegation killed mid-step (in-memory engine)', () => {
  it('kill -9 during the reviewer’s step: after the restart the reviewer finishes and the lead finishes with its verdict', async () => {
    await crewKillRound({
      fake,
      env: { AGENTCSD_DATA_DIR: dirs.dataDir, AGENTCSD_PERSONAS_DIR: dirs.personasDir, AGENTCSD_SKILLS_DIR: dirs.skillsDir, AGENTCSD_TASK_STEP_DELAY_MS: '100', AGENTCSD_ENGINE: 'memory' },
      restart: () => startOrchestrator({ taskWorkingDelayMs: 0 }),
    });
  }, 150_000);
});
