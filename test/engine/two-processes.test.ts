// Two processes on one PostgreSQL (issue 19, requirement 5): this test's process (an orchestrator,
// with a Socket.IO server on the PostgreSQL adapter) and a real `server.ts --worker` process, both
// on the real model adapter pointed at the fake OpenAI-compatible server. A session held by the
// worker answers a message sent through this process; its events reach a browser connected here;
// its mind runs in one process only; when the worker is killed, the session moves here and goes on.
import { createServer, type Server as HttpServer } from 'node:http';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { attachSocketServer } from '@/lib/realtime/socket-server';
import { closeDb, getDb } from '@/lib/store/db';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startWorker, type WorkerProcess } from '@/test/support/worker-process';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let database: TestPostgres;
let fake: FakeOpenAIServer;
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;
let http: HttpServer | null = null;
let sockets: Awaited<ReturnType<typeof attachSocketServer>> | null = null;
let browser: Socket | null = null;

beforeAll(async () => {
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  fake = await startFakeOpenAIServer({ script: taskScript, chunkDelayMs: 5 });
  await getDb(); // migrates, so the two processes do not race to
}, 60_000);

afterAll(async () => {
  browser?.close();
  await new Promise((resolve) => (sockets ? sockets.close(resolve) : resolve(undefined)));
  await worker?.kill();
  await here?.stop();
  await fake?.close();
  await closeDb(); // before its server goes
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` });

async function conversation(sessionId: string) {
  return (await getDb()).message.findMany({ where: { sessionId, tag: { in: ['ED_user', 'ED_agent'] } }, orderBy: { id: 'asc' }, select: { tag: true, content: true } });
}

async function leaseOwner(sessionId: string): Promise<string | null> {
  const rows = await (await getDb()).$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM session_leases WHERE session_id = $1', sessionId);
  return rows[0]?.owner ?? null;
}

describe('two processes on one PostgreSQL', () => {
  it('a message sent here reaches the worker that runs the session; its events reach a browser here; killed, the session moves here', async () => {
    worker = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-b', AGENTCSD_DATA_DIR: dirs.dataDir, AGENTCSD_PERSONAS_DIR: dirs.personasDir });
    expect(worker.output()).toContain('> sharing sessions on PostgreSQL as worker-b (worker: no pages here)');

    // Created while this process has not joined yet: the worker takes it on its next round.
    // Capacity 0: this process holds no session while the worker runs (sessions spread by weight).
    here = new Orchestrator({ cluster: new Cluster({ url: database.url, owner: 'process-a', capacity: 0 }) });
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await vi.waitFor(async () => expect(await leaseOwner(session.id)).toBe('worker-b'), { timeout: 20_000 });
    await here.start();
    expect(here.mindState(session.id)).toBeNull(); // its mind runs in the worker, not here

    // A browser connected to this process, in the session's room.
    http = createServer();
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as { port: number }).port;
    sockets = await attachSocketServer({ httpServer: http, orchestrator: here, guard: { port, extraHosts: [] }, postgresUrl: database.url });
    const url = `http://127.0.0.1:${port}`;
    browser = connect(url, { transports: ['websocket'], extraHeaders: { origin: url } });
    const heard: { type: string; bootId: string; seq: number; message?: { content: string } }[] = [];
    browser.onAny((type: string, event: { bootId: string; seq: number; message?: { content: string } }) => heard.push({ type, ...event }));
    const joined = (await browser.timeout(5_000).emitWithAck('join', { sessionId: session.id })) as { ok: boolean; bootId: string; lastSeq: number };
    expect(joined.ok).toBe(true);
    expect(joined.bootId).not.toBe(here.bus.bootId); // the worker's numbering: its events follow on without a resync

    const sent = await here.sendUserMessage(session.id, { text: 'Hello from process A' });
    expect(sent).toMatchObject({ tag: 'ED_user', content: 'Hello from process A' });
    await vi.waitFor(async () => expect(await conversation(session.id)).toContainEqual({ tag: 'ED_agent', content: 'You said: Hello from process A' }), { timeout: 20_000 });
    // Produced in the worker, heard by the browser connected here.
    await vi.waitFor(() => expect(heard.map((event) => event.type)).toEqual(expect.arrayContaining(['message-persisted', 'turn-start', 'turn-end', 'cycle-start'])), { timeout: 10_000 });
    expect(here.mindState(session.id)).toBeNull();
    const fromWorker = heard.filter((event) => event.type === 'turn-end');
    expect(fromWorker.every((event) => event.bootId === joined.bootId && event.seq > joined.lastSeq)).toBe(true);

    // The worker dies without a word: after its lease time the session's mind runs here.
    await worker.kill();
    await vi.waitFor(() => expect(here!.mindState(session.id)).not.toBeNull(), { timeout: 15_000, interval: 200 });
    expect(await leaseOwner(session.id)).toBe('process-a');
    await here.sendUserMessage(session.id, { text: 'Still there?' });
    await vi.waitFor(async () => expect(await conversation(session.id)).toContainEqual({ tag: 'ED_agent', content: 'You said: Still there?' }), { timeout: 20_000 });

    // One mind at a time all along: each message answered once, no Subconscious cycle written twice.
    expect(await conversation(session.id)).toEqual([
      { tag: 'ED_user', content: 'Hello from process A' },
      { tag: 'ED_agent', content: 'You said: Hello from process A' },
      { tag: 'ED_user', content: 'Still there?' },
      { tag: 'ED_agent', content: 'You said: Still there?' },
    ]);
    const cycles = await (await getDb()).message.findMany({ where: { sessionId: session.id, tag: 'S_loud' }, select: { cycleNumber: true } });
    expect(new Set(cycles.map((cycle) => cycle.cycleNumber)).size).toBe(cycles.length);
  }, 90_000);
});
