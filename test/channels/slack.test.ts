// A session reached over Slack (issue 62): Bolt in Socket Mode pointed at a protocol-faithful fake
// (test/fakes/fake-slack-server.ts: the Web API, the Socket Mode WebSocket with envelopes kept until
// acknowledged), the real orchestrator and store, the fake model. A stranger and pairing, a DM
// conversation, a `disconnect` mid-conversation, slash commands answered ephemerally, a card's
// buttons (a stranger's, a guest's and the right person's press; decided once, the message updated
// with who), a channel joined, mention-gated with replies in threads, Slack's AI side panel (prompts,
// title, the mood as the status, the reply streamed), a 429 storm delivering every message once and
// in order, a restart mid-event answering once, and files (an image kept, a hostile file refused with the reason, a
// file whose address is not Slack's never fetched with the token).
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { enqueueOutbox, findChannel, listOpenPairings, outboxCounts, saveChannel, writeOffset } from '@/lib/store/channels-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { listMoodAndCriteria, readWholeSession } from '@/lib/store/messages-repository';
import { suggestedPrompts } from '@/lib/channels/chat-mind';
import { loadingMessages } from '@/lib/channels/slack-assistant';
import { listUploads } from '@/lib/store/uploads-repository';
import { channelInputSchema, mergeChannelConfig, publicChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { createAdapter } from '@/lib/channels/channel-service';
import { startFakeSlack, type FakeSlack, type SlackUser } from '@/test/fakes/fake-slack-server';
import { spokenAudio, startSpeechServer } from '@/test/fakes/speech-server';
import { saveTranscriptionServer } from '@/lib/voice/voice-settings';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { claimedPng } from '@/test/support/hostile-files';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let slack: FakeSlack;
let orchestrator: Orchestrator;
let sessionId = '';
const channelId = randomUUID();
const ana: SlackUser = { id: 'U0ANA00001', name: 'ana' };
const bob: SlackUser = { id: 'U0BOB00002', name: 'bob' };
const eve: SlackUser = { id: 'U0EVE00003', name: 'eve' };

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  [model, slack] = await Promise.all([startFakeOpenAIServer({ script: taskScript }), startFakeSlack()]);
});
afterAll(async () => {
  await orchestrator?.stop();
  await slack?.close();
  await model?.close();
  await closeDb();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const dm = (user: SlackUser) => slack.posted.filter((message) => message.channel === slack.dmOf(user));
const lastTo = (user: SlackUser) => dm(user).at(-1)?.text ?? '';
const whispersTo = (user: SlackUser) => slack.ephemeral.filter((message) => message.user === user.id).map((message) => message.text);
const inChannel = () => slack.posted.filter((message) => message.channel === slack.channel.id);
const modelSaw = (text: string) => model.requests.some((request) => JSON.stringify(request.body).includes(text));

async function pair(user: SlackUser, role: 'trusted' | 'guest'): Promise<void> {
  const pairing = (await listOpenPairings(channelId, new Date())).find((open) => open.sender === `slack:${user.id}`)!;
  expect(pairing).toMatchObject({ senderName: `@${user.name}`, address: `im:${slack.dmOf(user)}` });
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing.code, ...(role === 'trusted' ? { session_id: sessionId } : { persona: 'tester' }), role, share: role === 'trusted' }));
  orchestrator.channels!.wake(channelId);
  await expect.poll(() => lastTo(user), { timeout: 10_000 }).toMatch(/^Paired/);
}

describe('a session over Slack', () => {
  it('pairs, talks in a DM, survives a disconnect, answers commands ephemerally and decides a card from its own buttons only', async () => {
    const input = channelInputSchema.parse({ id: channelId, kind: 'slack', name: 'team', config: { app_token: slack.appToken, bot_token: slack.botToken, api_root: slack.apiRoot } });
    const config = mergeChannelConfig({ ...input, id: channelId }, null);
    expect(JSON.stringify(config)).not.toContain(slack.botToken);
    expect(JSON.stringify(config)).not.toContain(slack.appToken);
    const channel = await saveChannel({ id: channelId, kind: 'slack', name: 'team', enabled: true, config });
    expect(publicChannelConfig(channel)).toMatchObject({ bot_token: `••••${slack.botToken.slice(-4)}`, app_token: `••••${slack.appToken.slice(-4)}`, api_root: slack.apiRoot });
    expect(await (await createAdapter((await findChannel(channelId))!)).test()).toBe('@agentcsd in Fake team');

    await writeSettings({ ...(await readSettings()), models: { c_model: layer(), s_model: layer() } });
    orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
    await orchestrator.start();
    sessionId = (await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } })).id;
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state, { timeout: 15_000 }).toMatchObject({ kind: 'connected', detail: '@agentcsd' });

    // A stranger gets one code; nothing reaches a model.
    slack.userDMs(ana, 'hello, who are you?');
    await expect.poll(() => lastTo(ana), { timeout: 10_000 }).toMatch(/^Pairing code: /);
    expect(modelSaw('who are you')).toBe(false);
    await pair(ana, 'trusted');

    slack.userDMs(ana, 'Hi there');
    await expect.poll(() => lastTo(ana), { timeout: 15_000 }).toContain('You said: Hi there');
    expect(slack.unacked()).toBe(0);

    // Slack recycles the connection; what Ana writes meanwhile is answered once, after the reconnect.
    slack.disconnect();
    slack.userDMs(ana, 'Written during the reconnect');
    await expect.poll(() => slack.connections(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => lastTo(ana), { timeout: 15_000 }).toContain('You said: Written during the reconnect');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dm(ana).filter((message) => message.text.includes('You said: Written during the reconnect'))).toHaveLength(1);
    expect(slack.unacked()).toBe(0);
    expect(slack.maxLive()).toBe(1);

    // /agentcsd status: seen by Ana only.
    const before = dm(ana).length;
    slack.slash(ana, slack.dmOf(ana), 'status');
    await expect.poll(() => whispersTo(ana).at(-1) ?? '', { timeout: 10_000 }).toMatch(/: active \(persona tester\)$/);
    expect(dm(ana)).toHaveLength(before);

    // A card: Block Kit buttons with signed values. A stranger's and a guest's press decide nothing;
    // Ana's decides once and the message says who decided.
    slack.userDMs(bob, 'hi, I am Bob');
    await expect.poll(() => lastTo(bob), { timeout: 10_000 }).toMatch(/^Pairing code: /);
    await pair(bob, 'guest');
    slack.userDMs(ana, 'Please do it [[tools]]');
    const card = () => dm(ana).find((message) => message.blocks?.some((block) => block.type === 'actions') && message.text.includes('bash'));
    await expect.poll(card, { timeout: 15_000 }).toBeTruthy();
    const actions = card()!.blocks!.find((block) => block.type === 'actions')!.elements!;
    expect(actions.map((action) => action.action_id)).toEqual(['card_approve', 'card_always', 'card_deny']);
    const bash = async () => (await listToolCalls({ sessionId })).find((call) => call.name === 'bash');
    slack.press(eve, card()!, 'card_approve');
    await expect.poll(() => whispersTo(eve).at(-1) ?? '', { timeout: 10_000 }).toMatch(/not valid here/);
    slack.press(bob, card()!, 'card_approve');
    await expect.poll(() => whispersTo(bob).at(-1) ?? '', { timeout: 10_000 }).toMatch(/not valid here/);
    expect((await bash())?.status).toBe('awaiting_approval');
    expect(slack.updates).toHaveLength(0);
    slack.press(ana, card()!, 'card_approve');
    await expect.poll(() => slack.updates.at(-1)?.text ?? '', { timeout: 10_000 }).toMatch(new RegExp(`approved\\. — by <@${ana.id}>$`));
    expect(JSON.stringify(slack.updates.at(-1)!.blocks)).not.toContain('card_approve');
    slack.press(ana, card()!, 'card_approve');
    await expect.poll(() => whispersTo(ana).at(-1) ?? '', { timeout: 10_000 }).toMatch(/no longer awaiting/);
    expect(slack.updates).toHaveLength(1);
    await expect.poll(async () => (await bash())?.status, { timeout: 20_000 }).toBe('succeeded');
    const python = () => dm(ana).find((message) => message.blocks?.some((block) => block.type === 'actions') && message.text.includes('python'));
    await expect.poll(python, { timeout: 15_000 }).toBeTruthy();
    slack.press(ana, python()!, 'card_approve');
    await expect.poll(() => dm(ana).some((message) => message.text.includes('42')), { timeout: 20_000 }).toBe(true);
  }, 120_000);

  it('joins a channel on request, answers only when mentioned, in the thread of the mention', async () => {
    slack.userPosts(ana, 'hello everyone');
    slack.slash(eve, slack.channel.id, 'join tester');
    slack.slash(bob, slack.channel.id, 'join tester');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(inChannel()).toHaveLength(0); // a stranger and a guest join nothing
    slack.slash(ana, slack.channel.id, 'join tester');
    await expect.poll(() => inChannel().at(-1)?.text ?? '', { timeout: 10_000 }).toMatch(/^Joined as tester\./);
    slack.userPosts(bob, 'just chatting among ourselves');
    const mention = slack.userPosts(bob, `<@${slack.bot.id}> what is the plan?`);
    await expect.poll(() => inChannel().find((message) => message.text.includes('what is the plan?')), { timeout: 15_000 }).toMatchObject({ thread_ts: mention });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(modelSaw('among ourselves')).toBe(false);
    expect(inChannel().filter((message) => message.text.includes('what is the plan?'))).toHaveLength(1); // `message` and `app_mention`: one turn
  }, 60_000);

  it('keeps an image a person shares, refuses a hostile file with the reason and never sends the token elsewhere', async () => {
    const { default: sharp } = await import('sharp');
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3c3' } }).png().toBuffer();
    slack.userDMs(ana, 'Here are the files.', {
      files: [
        { name: 'photo.png', mimetype: 'image/png', bytes: image },
        { name: 'bomb.png', mimetype: 'image/png', bytes: claimedPng(60_000, 60_000) },
        { name: 'elsewhere.png', mimetype: 'image/png', bytes: image, url: 'https://collector.example/steal.png' },
      ],
    });
    const filed = async () => (await readWholeSession({ sessionId })).messages.find((message) => message.content.startsWith('Here are the files.'));
    await expect.poll(filed, { timeout: 20_000 }).toBeTruthy();
    const uploads = await listUploads(sessionId);
    expect(uploads.map((upload) => [upload.name, upload.mimeType])).toEqual([['photo.png', 'image/png']]);
    expect((await filed())!.content).toMatch(/Not kept: bomb\.png was refused: .*; elsewhere\.png: not fetched: its address is not Slack’s file host/);
    await expect.poll(() => lastTo(ana), { timeout: 15_000 }).toContain('Here are the files.');
  }, 60_000);

  it('hears an audio clip a person shares: its words are her message, the clip kept as audio (issue 76 §2)', async () => {
    const speech = await startSpeechServer();
    try {
      await saveTranscriptionServer({ endpoint: speech.url, model: 'whisper-1' });
      const clip = Buffer.from(await spokenAudio('what is the weather like today', 'webm'));
      slack.userDMs(ana, '', { files: [{ name: 'audio_message.webm', mimetype: 'audio/webm', bytes: clip }] });
      await expect.poll(() => lastTo(ana), { timeout: 20_000 }).toMatch(/weather/);
      expect((await listUploads(sessionId)).filter((upload) => upload.kind === 'audio').map((upload) => upload.mimeType)).toEqual(['audio/webm']);
      expect(speech.received.at(-1)).toMatchObject({ filename: 'audio_message.webm', type: 'audio/webm' });
    } finally {
      await saveTranscriptionServer(null);
      await speech.close();
    }
  }, 60_000);

  it('the AI side panel: the persona’s prompts, a title, the mood and criteria as the status, the reply streamed', async () => {
    const thread = slack.openThread(ana);
    const called = (method: string) => slack.calls.filter((call) => call.method === method && call.args.thread_ts === thread);
    await expect.poll(() => called('assistant.threads.setSuggestedPrompts').length, { timeout: 10_000 }).toBe(1);
    expect(called('assistant.threads.setSuggestedPrompts')[0]!.args).toMatchObject({ title: 'Ask tester', prompts: suggestedPrompts('tester') });

    const [latest] = await listMoodAndCriteria({ sessionId, limit: 1 });
    expect(latest?.mood).toBeTruthy(); // the Subconscious has set one by now
    slack.userDMs(ana, 'Tell me about your day', { thread_ts: thread });
    await expect.poll(() => called('assistant.threads.setTitle').map((call) => call.args.title), { timeout: 10_000 }).toEqual(['Tell me about your day']);
    const status = called('assistant.threads.setStatus')[0]!.args;
    expect(status.status).toBe('is thinking…');
    expect(status.loading_messages).toEqual(loadingMessages({ persona: 'tester', mood: latest?.mood ?? null, criteria: latest?.criteria ?? null, prompts: [] }));
    const reply = () => slack.posted.filter((message) => message.text.includes('You said: Tell me about your day'));
    await expect.poll(() => reply().map((message) => [message.thread_ts, message.streaming]), { timeout: 15_000 }).toEqual([[thread, false]]);
    expect(slack.calls.some((call) => call.method === 'chat.startStream' && call.args.thread_ts === thread)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reply()).toHaveLength(1); // the outbox's row for the same words posts nothing more

    // A workspace without chat streaming: the reply is posted in the thread, whole.
    slack.streaming = false;
    slack.userDMs(ana, 'And tomorrow?', { thread_ts: thread });
    await expect.poll(() => slack.posted.filter((message) => message.text.includes('You said: And tomorrow?')).map((message) => message.thread_ts), { timeout: 15_000 }).toEqual([thread]);
    slack.streaming = true;
  }, 60_000);

  it('a 429 storm: every message delivered once, in order', async () => {
    await expect.poll(async () => (await outboxCounts(channelId)).pending, { timeout: 20_000 }).toBe(0);
    const before = dm(ana).length;
    const limited = slack.calls.length;
    slack.rateLimitNext(6, 1);
    for (let index = 0; index < 12; index++) await enqueueOutbox({ channelId, address: `im:${slack.dmOf(ana)}`, payload: { text: `queued ${index}` } });
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => dm(ana).length - before, { timeout: 30_000 }).toBe(12);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dm(ana).slice(before).map((message) => message.text)).toEqual(Array.from({ length: 12 }, (_, index) => `queued ${index}`));
    expect(slack.calls.slice(limited).filter((call) => call.status === 429)).toHaveLength(6);
    expect(await outboxCounts(channelId)).toMatchObject({ pending: 0, failed: 0 });
  }, 60_000);

  it('a restart mid-event: the message kept before its id was noted is known by its words, never kept or answered twice', async () => {
    // The worst moment of a crash: the message is in its session, the event's id not yet noted,
    // its envelope not acknowledged (test/channels/channel-cluster.test.ts kills a real holder later on).
    slack.dropAcks = true;
    slack.userDMs(ana, 'Caught mid-event');
    await expect.poll(() => dm(ana).filter((message) => message.text.includes('You said: Caught mid-event')).length, { timeout: 15_000 }).toBe(1);
    expect(slack.unacked()).toBe(1);
    slack.dropAcks = false;
    await writeOffset(`${channelId}:slack-events`, '[]');
    await orchestrator.channels!.reload(channelId);
    await expect.poll(() => slack.unacked(), { timeout: 20_000 }).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(dm(ana).filter((message) => message.text.includes('You said: Caught mid-event'))).toHaveLength(1);
    expect((await readWholeSession({ sessionId })).messages.filter((message) => message.content === 'Caught mid-event')).toHaveLength(1);
    expect(slack.maxLive()).toBe(1);
  }, 60_000);
});
