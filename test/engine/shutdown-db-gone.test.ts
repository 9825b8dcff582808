// A process stopped (Ctrl-C, SIGTERM) after its PostgreSQL is already gone (issue 60 §4): it says so
// in one line and exits — no Prisma stack, no wait for the forced exit. A real `server.ts --worker`
// on the test's PostgreSQL, which the test kills first.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startWorker, type WorkerProcess } from '@/test/support/worker-process';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let database: TestPostgres;
let worker: WorkerProcess | null = null;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  database = await startPostgres();
}, 60_000);
afterAll(async () => {
  await worker?.kill();
  await database?.stop();
});

describe('stopping while PostgreSQL is gone', () => {
  it('says so in one line and exits, without a stack', async () => {
    worker = await startWorker({ AGENTCSD_DATABASE_URL: database.url, AGENTCSD_ENGINE: 'dbos', AGENTCSD_EXECUTOR_ID: 'lonely', AGENTCSD_DATA_DIR: dirs.dataDir, AGENTCSD_PERSONAS_DIR: dirs.personasDir });
    database.process.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = worker.output().length;
    const exited = new Promise<number | null>((resolve) => worker!.child.once('exit', (code) => resolve(code)));
    worker.child.kill('SIGTERM');
    const code = await exited;
    const said = worker.output().slice(before);
    expect(said, said).not.toMatch(/\n\s+at \S+ \(/); // no stack frames
    expect(said, said).not.toMatch(/PrismaClient|Invalid `prisma/);
    const lines = said.split('\n').filter(Boolean);
    expect(lines.filter((line) => line.startsWith('> ')).join('\n')).toMatch(/^> SIGTERM: pausing sessions and closing\n> shutdown failed: Can't reach database server at .+ \(P1001\); unfinished work continues at the next start$/);
    // DBOS's own background pollers may say in the same moment, a line each, that the database is
    // unreachable (its logger, not ours; the clean-clone run once caught three): nothing else.
    expect(lines.filter((line) => !line.startsWith('> ')).every((line) => /ECONNREFUSED/.test(line)), said).toBe(true);
    expect(code).not.toBeNull();
  }, 60_000);
});
