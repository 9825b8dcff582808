// A channel in a cluster (issue 28 §5): two processes on one PostgreSQL — this test's and a real
// `server.ts --worker` — both able to connect channels. The bot is polled by exactly one of them
// (the fake Bot API answers a second concurrent getUpdates with 409, as Telegram does: none
// happen); a chat's message reaches the session wherever its mind runs and the answer comes back;
// the holder killed with SIGKILL, the survivor takes the channel over and the conversation goes on,
// every answer delivered once.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram, type FakeTelegram } from '@/test/fakes/fake-telegram-server';
import { mindScript } from '@/test/fakes/mind-script';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import type { WorkerProcess } from '@/test/support/worker-process';
import { channelHolder, workerHoldingChannel } from '@/test/support/channel-lease';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let database: TestPostgres;
let model: FakeOpenAIServer;
let telegram: FakeTelegram;
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  model = await startFakeOpenAIServer({ script: mindScript });
  telegram = await startFakeTelegram();
  await getDb();
}, 60_000);

afterAll(async () => {
  await worker?.kill();
  await here?.stop();
  await telegram?.close();
  await model?.close();
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

describe('a channel shared by two processes', () => {
  it('is polled by one, reaches the session wherever it runs, and moves when its holder dies', async () => {
    const channelId = randomUUID();
    const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } });
    await saveChannel({ id: channelId, kind: 'telegram', name: 'phone', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    ({ worker, here } = await workerHoldingChannel({ channelId, databaseUrl: database.url, dirs }));
    const holder = () => channelHolder(channelId);
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    expect((await here.channels!.status(channelId)).state.kind).toBe('elsewhere');

    const ana = { id: 808, username: 'ana' };
    telegram.userWrites(ana, 'hello');
    await expect.poll(() => listOpenPairings(channelId, new Date()).then((open) => open.length), { timeout: 15_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted' }));
    const said = (text: string) => telegram.sent.filter((message) => message.chatId === String(ana.id) && message.text.includes(text));

    telegram.userWrites(ana, 'First question');
    await expect.poll(() => said('You said: First question').length, { timeout: 20_000 }).toBe(1);
    // Delivery is at least once: a holder killed between the Bot API's answer and marking the row
    // sent would send it again. The kill waits for the mark, so a second copy below is a real bug.
    await expect.poll(async () => (await getDb()).channelOutbox.count({ where: { channelId, state: { not: 'sent' } } }), { timeout: 10_000 }).toBe(0);

    // The holder dies: the survivor takes the channel (and whatever sessions it held) and goes on.
    await worker.kill();
    await expect.poll(holder, { timeout: 20_000, interval: 200 }).toBe('process-a');
    await expect.poll(async () => (await here!.channels!.status(channelId)).state.kind, { timeout: 15_000 }).toBe('connected');
    telegram.userWrites(ana, 'Second question');
    await expect.poll(() => said('You said: Second question').length, { timeout: 20_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(said('You said: First question')).toHaveLength(1);
    expect(said('You said: Second question')).toHaveLength(1);
    expect(telegram.conflicts()).toBe(0);
  }, 120_000);
});
