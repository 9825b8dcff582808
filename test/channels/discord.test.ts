// A session reached over Discord (issue 47): discord.js pointed at a protocol-faithful fake
// (Gateway over WebSocket: hello, identify, heartbeat, resume, dispatch; the REST endpoints the bot
// calls, with 429 and retry_after), the real orchestrator and store, the fake model. A stranger and
// pairing, a DM conversation, a Gateway drop resumed with nothing lost, slash commands, a card's
// buttons (signed, pressed by the wrong user, tampered, pressed twice), a guild channel joined and
// answering only when mentioned, and a 429 storm delivering every message once, in order.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { enqueueOutbox, findChannel, listOpenPairings, outboxCounts, saveChannel } from '@/lib/store/channels-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { channelInputSchema, mergeChannelConfig, publicChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { createAdapter } from '@/lib/channels/channel-service';
import { spokenAudio, startSpeechServer } from '@/test/fakes/speech-server';
import { saveTranscriptionServer } from '@/lib/voice/voice-settings';
import { mayFetchAttachment } from '@/lib/channels/discord-files';
import { startFakeDiscord, type DiscordUser, type FakeDiscord } from '@/test/fakes/fake-discord-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let discord: FakeDiscord;
let orchestrator: Orchestrator;
const channelId = randomUUID();
const ana: DiscordUser = { id: '900000000000000001', username: 'ana' };
const bob: DiscordUser = { id: '900000000000000002', username: 'bob' };

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  [model, discord] = await Promise.all([startFakeOpenAIServer({ script: taskScript }), startFakeDiscord()]);
});
afterAll(async () => {
  await orchestrator?.stop();
  await discord?.close();
  await model?.close();
  await closeDb();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const dm = (user: DiscordUser) => discord.sent.filter((message) => message.channelId === discord.dmChannelOf(user.id));
const lastTo = (user: DiscordUser) => dm(user).at(-1)?.content ?? '';
const inGuild = () => discord.sent.filter((message) => message.channelId === discord.guild.channel.id);

describe('a session over Discord', () => {
  it('pairs, talks in a DM, resumes after a drop, takes commands and decides a card from its own buttons only', async () => {
    const input = channelInputSchema.parse({ id: channelId, kind: 'discord', name: 'bot', config: { token: discord.token, guild_channels: [discord.guild.channel.id], api_root: discord.apiRoot } });
    const config = mergeChannelConfig({ ...input, id: channelId }, null);
    expect(JSON.stringify(config)).not.toContain(discord.token);
    const channel = await saveChannel({ id: channelId, kind: 'discord', name: 'bot', enabled: true, config });
    expect(publicChannelConfig(channel)).toMatchObject({ token: `••••${discord.token.slice(-4)}`, guild_channels: [discord.guild.channel.id] });
    expect(await (await createAdapter((await findChannel(channelId))!)).test()).toBe('@agentcsd_test_bot; Message Content intent on');

    await writeSettings({ ...(await readSettings()), models: { c_model: layer(), s_model: layer() } });
    orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
    await orchestrator.start();
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state, { timeout: 15_000 }).toMatchObject({ kind: 'connected', detail: '@agentcsd_test_bot' });
    await expect.poll(() => discord.commands.map((command) => command.name), { timeout: 10_000 }).toEqual(['status', 'pause', 'resume', 'stop', 'new']);

    // A stranger gets one code; nothing reaches a model.
    discord.userWrites(ana, 'hello, who are you?');
    await expect.poll(() => lastTo(ana), { timeout: 10_000 }).toMatch(/^Pairing code: /);
    const [pairing] = await listOpenPairings(channelId, new Date());
    expect(pairing).toMatchObject({ sender: `discord:${ana.id}`, senderName: '@ana', address: `user:${ana.id}` });
    expect(model.requests.some((request) => JSON.stringify(request.body).includes('who are you'))).toBe(false);
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => lastTo(ana), { timeout: 10_000 }).toMatch(/^Paired/);

    discord.userWrites(ana, 'Hi there');
    await expect.poll(() => lastTo(ana), { timeout: 15_000 }).toContain('You said: Hi there');

    // The Gateway drops; what Ana writes meanwhile arrives once the client has resumed its session.
    discord.dropGateway();
    discord.userWrites(ana, 'Written during the drop');
    await expect.poll(() => discord.resumes(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => lastTo(ana), { timeout: 15_000 }).toContain('You said: Written during the drop');
    expect(discord.identifies()).toBe(1);

    // A slash command: acknowledged at once, answered in the chat.
    const status = discord.userRuns(ana, 'status');
    await expect.poll(() => discord.interactionReplies.find((reply) => reply.interactionId === status), { timeout: 10_000 }).toMatchObject({ type: 4, ephemeral: true });
    await expect.poll(() => lastTo(ana), { timeout: 10_000 }).toMatch(/: active \(persona tester\)$/);

    // A card: signed buttons under the DM; a stranger's press, a tampered id: nothing; Ana's press decides once.
    discord.userWrites(ana, 'Please do it [[tools]]');
    const card = async () => dm(ana).find((message) => message.components.length > 0 && message.content.includes('bash'));
    await expect.poll(card, { timeout: 15_000 }).toBeTruthy();
    const buttons = (await card())!.components.flatMap((row) => row.components);
    expect(buttons.map((button) => button.label)).toEqual(['Approve', 'Always for this session', 'Deny']);
    const approve = buttons[0]!.custom_id!;
    const bash = async () => (await listToolCalls({ sessionId: session.id })).find((call) => call.name === 'bash');
    const answered = (id: string) => discord.interactionReplies.find((reply) => reply.interactionId === id)?.content;
    const byBob = discord.userPresses(bob, (await card())!, approve);
    await expect.poll(() => answered(byBob), { timeout: 10_000 }).toMatch(/not valid/);
    const tampered = discord.userPresses(ana, (await card())!, approve.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')));
    await expect.poll(() => answered(tampered), { timeout: 10_000 }).toMatch(/not valid/);
    expect((await bash())?.status).toBe('awaiting_approval');
    const first = discord.userPresses(ana, (await card())!, approve);
    await expect.poll(() => answered(first), { timeout: 10_000 }).toMatch(/approved/);
    const second = discord.userPresses(ana, (await card())!, approve);
    await expect.poll(() => answered(second), { timeout: 10_000 }).toMatch(/no longer awaiting/);
    await expect.poll(async () => (await bash())?.status, { timeout: 20_000 }).toBe('succeeded');
    const python = async () => dm(ana).find((message) => message.components.length > 0 && message.content.includes('python'));
    await expect.poll(python, { timeout: 15_000 }).toBeTruthy();
    discord.userPresses(ana, (await python())!, (await python())!.components[0]!.components[0]!.custom_id!);
    await expect.poll(() => dm(ana).some((message) => message.content.includes('42')), { timeout: 20_000 }).toBe(true);
  }, 120_000);

  it('joins a guild channel on request and answers there only when mentioned', async () => {
    discord.userWritesInGuild(ana, 'hello everyone', false);
    discord.userWritesInGuild(ana, '/join tester', true);
    await expect.poll(() => inGuild().at(-1)?.content ?? '', { timeout: 10_000 }).toMatch(/^Joined as tester\./);
    const before = inGuild().length;
    discord.userWritesInGuild(bob, 'just chatting among ourselves', false);
    discord.userWritesInGuild(bob, 'what is the plan?', true);
    await expect.poll(() => inGuild().at(-1)?.content ?? '', { timeout: 15_000 }).toContain('what is the plan?');
    expect(inGuild().slice(before).some((message) => message.content.includes('among ourselves'))).toBe(false);
  }, 60_000);

  it('hears a voice message in a DM from Discord’s CDN only, and says why one is not heard (issue 76 §2)', async () => {
    const speech = await startSpeechServer();
    try {
      await saveTranscriptionServer({ endpoint: speech.url, model: 'whisper-1' });
      discord.userSpeaks(ana, await spokenAudio('what is the weather like today', 'ogg'));
      await expect.poll(() => lastTo(ana), { timeout: 20_000 }).toMatch(/You said: .*weather/);
      expect(discord.downloads.at(-1)).toMatch(/\/voice-message\.ogg$/);
      expect(speech.received.at(-1)).toMatchObject({ filename: 'voice-message.ogg', type: 'audio/ogg' });
      // Past the cap by the size Discord states: not even fetched, and she is told.
      const downloads = discord.downloads.length;
      discord.userSpeaks(ana, new Uint8Array(8), { size: 400 * 1024 * 1024 });
      await expect.poll(() => lastTo(ana), { timeout: 15_000 }).toContain('Your voice note was not heard: the recording is larger than');
      expect(discord.downloads.length).toBe(downloads);
    } finally {
      await saveTranscriptionServer(null);
      await speech.close();
    }
  }, 60_000);

  it('a voice message naming another address is not fetched (the token and the person’s audio stay with Discord)', () => {
    expect(mayFetchAttachment('https://cdn.discordapp.com/attachments/1/2/voice-message.ogg', 'https://discord.com/api')).toBe(true);
    expect(mayFetchAttachment('https://collector.example/voice-message.ogg', 'https://discord.com/api')).toBe(false);
    expect(mayFetchAttachment('http://cdn.discordapp.com/attachments/1/2/a.ogg', 'https://discord.com/api')).toBe(false);
    expect(mayFetchAttachment('https://user:pw@cdn.discordapp.com/a.ogg', 'https://discord.com/api')).toBe(false);
    expect(mayFetchAttachment('https://cdn.discordapp.com.evil.example/a.ogg', 'https://discord.com/api')).toBe(false);
  });

  it('a 429 storm: every message delivered once, in order', async () => {
    await expect.poll(async () => (await outboxCounts(channelId)).pending, { timeout: 20_000 }).toBe(0);
    const before = dm(ana).length;
    const limited = discord.calls.length;
    discord.rateLimitNext(8, 0.2);
    for (let index = 0; index < 15; index++) await enqueueOutbox({ channelId, address: `user:${ana.id}`, payload: { text: `queued ${index}` } });
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => dm(ana).length - before, { timeout: 30_000 }).toBe(15);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dm(ana).slice(before).map((message) => message.content)).toEqual(Array.from({ length: 15 }, (_, index) => `queued ${index}`));
    expect(discord.calls.slice(limited).filter((call) => call.status === 429)).toHaveLength(8);
    expect(await outboxCounts(channelId)).toMatchObject({ pending: 0, failed: 0 });
  }, 60_000);
});
