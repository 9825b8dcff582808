// Each slot fires once with two processes on one PostgreSQL (issue 29 §1): this test's process and
// a real `server.ts --worker`, both running their scheduler against the same schedules. Eight
// reminders a second apart: each one's message is stored exactly once, whichever process won its
// slot's claim.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { listSchedules } from '@/lib/store/triggers-repository';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startWorker, type WorkerProcess } from '@/test/support/worker-process';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let database: TestPostgres;
let model: FakeOpenAIServer;
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  model = await startFakeOpenAIServer({ script: mindScript });
  await getDb();
}, 60_000);

afterAll(async () => {
  await worker?.kill();
  await here?.stop();
  await model?.close();
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

describe('schedules in a cluster', () => {
  it('two processes fire each slot exactly once', async () => {
    worker = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-b', AGENTCSD_DATA_DIR: dirs.dataDir, AGENTCSD_PERSONAS_DIR: dirs.personasDir });
    here = new Orchestrator({ cluster: new Cluster({ url: database.url, owner: 'process-a' }) });
    await here.start();
    const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
    const first = Math.ceil(Date.now() / 1000) * 1000 + 3_000;
    for (let index = 0; index < 8; index++) {
      const at = new Date(first + index * 1000).toISOString().slice(0, 19).replace('T', ' ');
      await createSchedule({ sessionId: session.id, body: createScheduleSchema.parse({ name: `two ${index}`, kind: 'once', expression: at, time_zone: 'UTC', action: { kind: 'message', text: 'tick' } }), createdBy: 'user', now: new Date() });
    }
    await expect.poll(async () => (await listSchedules({ sessionId: session.id })).filter((schedule) => schedule.lastResult === 'message sent').length, { timeout: 30_000, interval: 250 }).toBe(8);
    const stored = await (await getDb()).message.findMany({ where: { sessionId: session.id, tag: 'ED_user' }, select: { content: true } });
    const names = stored.map((message) => /⏰ Scheduled "(two \d)"/.exec(message.content)?.[1]).filter(Boolean).sort();
    expect(names).toEqual(Array.from({ length: 8 }, (_, index) => `two ${index}`));
  }, 90_000);
});
