// What the tests of several processes share (issues 19 and 31): a PostgreSQL of their own, a fake
// OpenAI-compatible model, and — once a test starts them — this process's orchestrator and a real
// worker process, all stopped afterwards in the right order.
import { afterAll, beforeAll } from 'vitest';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { startFakeOpenAIServer, type FakeOpenAIOptions, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startPostgres, type TestPostgres } from './postgres';
import type { WorkerProcess } from './worker-process';

export interface ClusterFixture {
  database: TestPostgres;
  fake: FakeOpenAIServer;
  /** Worker processes a test started: stopped (SIGCONT first, for a stopped one) afterwards. */
  workers: WorkerProcess[];
  here: Orchestrator | null;
  /** A layer on the fake model. */
  layer(): { backend: 'openai_compatible'; model: string; max_tokens: number; endpoint: string };
}

export function useClusterFixture(fakeOptions: FakeOpenAIOptions, before?: () => void): ClusterFixture {
  const fixture = {
    workers: [],
    here: null,
    layer: () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fixture.fake.url}/v1` }),
  } as unknown as ClusterFixture;
  beforeAll(async () => {
    before?.();
    fixture.database = await startPostgres();
    process.env.AGENTCSD_DATABASE_URL = fixture.database.url;
    fixture.fake = await startFakeOpenAIServer(fakeOptions);
    await getDb(); // migrates, so the processes do not race to
  }, 60_000);
  afterAll(async () => {
    for (const worker of fixture.workers) {
      if (worker.child.exitCode === null) worker.child.kill('SIGCONT'); // a stopped one cannot die
      await worker.kill();
    }
    await fixture.here?.stop();
    await fixture.fake?.close();
    await closeDb(); // before its server goes
    delete process.env.AGENTCSD_DATABASE_URL;
    await fixture.database?.stop();
  });
  return fixture;
}
