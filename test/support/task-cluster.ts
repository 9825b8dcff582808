// The harness of the tests that run tasks across real worker processes (issue 19, issue 65): a
// PostgreSQL of the file's own as the store, the task script's fake model, a workspace the
// sandbox's user can read. Registered first in a file, it is torn down last (vitest runs
// after-hooks in reverse), after the file's own workers and orchestrators have stopped.
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { closeDb, getDb } from '@/lib/store/db';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { startPostgres, type TestPostgres } from './postgres';
import { useTempAppDirs } from './temp-app-dirs';

export function useTaskCluster() {
  const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
  let database: TestPostgres | undefined;
  let fake: FakeOpenAIServer | undefined;
  beforeAll(async () => {
    fs.chmodSync(dirs.root, 0o755); // the sandbox's user reads the workspace
    database = await startPostgres();
    process.env.AGENTCSD_DATABASE_URL = database.url;
    // No version is set: vitest's transformed code and the worker's tsx are one version (issue 60).
    fake = await startFakeOpenAIServer({ script: taskScript, chunkDelayMs: 5 });
    await getDb();
  }, 60_000);
  afterAll(async () => {
    await fake?.close();
    await closeDb();
    delete process.env.AGENTCSD_DATABASE_URL;
    await database?.stop();
  });
  return {
    dirs,
    databaseUrl: () => database!.url,
    /** A layer on the fake model. */
    layer: () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake!.url}/v1` }),
  };
}
