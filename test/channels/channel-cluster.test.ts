// A channel in a cluster (issues 28 §5, 47 and 62): two processes on one PostgreSQL — this test's and a
// real `server.ts --worker` — both able to connect channels; the same story for a Telegram bot, a
// Discord bot and a Slack app. The bot is connected by exactly one of them (the fake Bot API answers
// a second concurrent getUpdates with 409, as Telegram does; the fake Discord counts Gateway
// sessions and the fake Slack Socket Mode connections live at once: neither happens); a chat's message reaches the session wherever its mind runs and the
// answer comes back; the holder killed with SIGKILL, the survivor takes the channel over and the
// conversation goes on, every answer delivered once.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram } from '@/test/fakes/fake-telegram-server';
import { startFakeDiscord } from '@/test/fakes/fake-discord-server';
import { startFakeSlack, type FakeSlack } from '@/test/fakes/fake-slack-server';
import { mindScript } from '@/test/fakes/mind-script';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import type { WorkerProcess } from '@/test/support/worker-process';
import { channelHolder, workerHoldingChannel } from '@/test/support/channel-lease';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let database: TestPostgres;
let model: FakeOpenAIServer;
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;
let closeProvider: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  model = await startFakeOpenAIServer({ script: mindScript });
  await getDb();
}, 60_000);

afterEach(async () => {
  await worker?.kill();
  await here?.stop();
  await closeProvider();
  [worker, here] = [null, null];
});

afterAll(async () => {
  await model?.close();
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

/** A provider's fake as the story needs it: the channel's settings, a person writing, what reached them, and that one process held the bot. */
interface Provider {
  config: Record<string, unknown>;
  writes(text: string): void;
  said(text: string): number;
  heldByOne(): void;
  close(): Promise<void>;
}

let slack: FakeSlack | null = null;

const providers: Record<'telegram' | 'discord' | 'slack', () => Promise<Provider>> = {
  telegram: async () => {
    const telegram = await startFakeTelegram();
    const ana = { id: 808, username: 'ana' };
    return {
      config: { token: telegram.token, api_root: telegram.apiRoot },
      writes: (text) => void telegram.userWrites(ana, text),
      said: (text) => telegram.sent.filter((message) => message.chatId === String(ana.id) && message.text.includes(text)).length,
      heldByOne: () => expect(telegram.conflicts()).toBe(0),
      close: () => telegram.close(),
    };
  },
  discord: async () => {
    const discord = await startFakeDiscord();
    const ana = { id: '900000000000000011', username: 'ana' };
    return {
      config: { token: discord.token, api_root: discord.apiRoot },
      writes: (text) => void discord.userWrites(ana, text),
      said: (text) => discord.sent.filter((message) => message.channelId === discord.dmChannelOf(ana.id) && message.content.includes(text)).length,
      heldByOne: () => {
        expect(discord.identifies()).toBe(2); // the worker's, then the survivor's
        expect(discord.maxLive()).toBe(1);
      },
      close: () => discord.close(),
    };
  },
  slack: async () => {
    slack = await startFakeSlack();
    const fake = slack;
    const ana = { id: 'U0ANA00011', name: 'ana' };
    return {
      config: { app_token: fake.appToken, bot_token: fake.botToken, api_root: fake.apiRoot },
      writes: (text) => void fake.userDMs(ana, text),
      said: (text) => fake.posted.filter((message) => message.channel === fake.dmOf(ana) && message.text.includes(text)).length,
      heldByOne: () => {
        expect(fake.maxLive()).toBe(1);
        expect(fake.unacked()).toBe(0);
      },
      close: () => fake.close(),
    };
  },
};

describe.each(['telegram', 'discord', 'slack'] as const)('a %s channel shared by two processes', (kind) => {
  it('is connected by one, reaches the session wherever it runs, and moves when its holder dies', async () => {
    const provider = await providers[kind]();
    closeProvider = () => provider.close();
    const channelId = randomUUID();
    const input = channelInputSchema.parse({ id: channelId, kind, name: 'phone', config: provider.config });
    await saveChannel({ id: channelId, kind, name: 'phone', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    ({ worker, here } = await workerHoldingChannel({ channelId, databaseUrl: database.url, dirs }));
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    expect((await here.channels!.status(channelId)).state.kind).toBe('elsewhere');

    provider.writes('hello');
    await expect.poll(() => listOpenPairings(channelId, new Date()).then((open) => open.length), { timeout: 15_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));

    provider.writes('First question');
    await expect.poll(() => provider.said('You said: First question'), { timeout: 20_000 }).toBe(1);
    // Delivery is at least once: a holder killed between the provider's answer and marking the row
    // sent would send it again. The kill waits for the mark, so a second copy below is a real bug.
    await expect.poll(async () => (await getDb()).channelOutbox.count({ where: { channelId, state: { not: 'sent' } } }), { timeout: 10_000 }).toBe(0);

    // Slack: the holder is killed mid-event — the message recorded, its envelope not acknowledged.
    // Slack hands it over again to the survivor, which knows it: answered once, kept once.
    if (kind === 'slack') {
      slack!.dropAcks = true;
      provider.writes('Mid-event question');
      await expect.poll(() => provider.said('You said: Mid-event question'), { timeout: 20_000 }).toBe(1);
      await expect.poll(async () => (await getDb()).channelOutbox.count({ where: { channelId, state: { not: 'sent' } } }), { timeout: 10_000 }).toBe(0);
      expect(slack!.unacked()).toBe(1);
      slack!.dropAcks = false;
    }

    // The holder dies: the survivor takes the channel (and whatever sessions it held) and goes on.
    await worker!.kill();
    await expect.poll(() => channelHolder(channelId), { timeout: 20_000, interval: 200 }).toBe('process-a');
    await expect.poll(async () => (await here!.channels!.status(channelId)).state.kind, { timeout: 15_000 }).toBe('connected');
    provider.writes('Second question');
    await expect.poll(() => provider.said('You said: Second question'), { timeout: 20_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(provider.said('You said: First question')).toBe(1);
    expect(provider.said('You said: Second question')).toBe(1);
    if (kind === 'slack') {
      expect(provider.said('You said: Mid-event question')).toBe(1);
      expect(await (await getDb()).message.count({ where: { sessionId: session.id, tag: 'ED_user', content: 'Mid-event question' } })).toBe(1);
      expect(slack!.connections()).toBe(2); // the worker's, then the survivor's
    }
    provider.heldByOne();
  }, 120_000);
});
