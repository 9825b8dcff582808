// The durable engine survives what kills processes (issue 19, requirement 2, at the engine level):
// a worker SIGKILLed in the middle of step k of N, and the database SIGKILLed under a running
// worker. Loopback only, bounded waits. Steps before k ran exactly once, step k at most twice,
// and the result equals an uninterrupted run's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { dbosKillRound, exited, lines, spawnDbosWorker } from '@/test/support/dbos-kill-round';

const STEPS = 6;
const EXPECTED = Array.from({ length: STEPS }, (_, index) => index * index).reduce((sum, value) => sum + value, 0);

let database: TestPostgres;
let dir: string;
beforeAll(async () => {
  database = await startPostgres();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-dbos-crash-'));
}, 60_000);
afterAll(async () => {
  await database?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('DBOS engine under crashes', () => {
  it('a worker killed with SIGKILL during step k (first, middle, last): the next worker finishes the run; steps before k ran once, step k twice, the result is an uninterrupted run\'s', async () => {
    for (const k of [0, 3, STEPS - 1]) {
      const round = await dbosKillRound({ databaseUrl: database.urlFor('agentcsd_crash'), dir, runId: `kill-${k}`, steps: STEPS, k });
      expect(round.failures).toEqual([]);
      expect(round.result).toBe(EXPECTED);
      expect(round.starts).toEqual(Array.from({ length: STEPS }, (_, index) => (index === k ? 2 : 1)));
    }
  }, 120_000);

  it('PostgreSQL killed with SIGKILL under a running worker: it reconnects when the database is back and finishes the run', async () => {
    const effects = path.join(dir, 'pg.log');
    const result = path.join(dir, 'pg.json');
    const running = spawnDbosWorker({ databaseUrl: database.urlFor('agentcsd_crash'), steps: STEPS, env: { RUN_ID: 'pg-kill', EFFECTS: effects, RESULT: result, PAUSE: '2:1500' } });
    await until(() => lines(effects).includes('start 2'), 'step 2 to start');
    await database.crashAndRestart(); // while step 2 runs: its result is written after the database is back
    expect(lines(effects)).not.toContain('done 2');
    expect(await exited(running.child), running.stderr()).toBe(0);
    expect(JSON.parse(fs.readFileSync(result, 'utf8')).result).toBe(EXPECTED);
    for (let index = 0; index < STEPS; index++) expect(lines(effects).filter((line) => line === `done ${index}`).length).toBeLessThanOrEqual(2);
  }, 120_000);
});
