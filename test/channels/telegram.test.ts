// A session reached over Telegram (issue 28): grammY's client pointed at a protocol-faithful fake
// Bot API, the real orchestrator, the real store, the fake model. Pairing, a conversation both
// ways, an approval card decided from the phone (once), a 429 honoured, a restart that handles no
// update twice and resends nothing confirmed.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { enqueueOutbox, listChannels, listOpenPairings, listBindings, saveChannel, outboxCounts } from '@/lib/store/channels-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { findTask } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { getDb } from '@/lib/store/db';
import { signCallback } from '@/lib/channels/card-callback';
import { readWholeSession } from '@/lib/store/messages-repository';
import { updateSession } from '@/lib/store/sessions-repository';
import { mergeChannelConfig, channelInputSchema } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeTelegram, type FakeTelegram } from '@/test/fakes/fake-telegram-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { personalSession, sessionPeople } from '@/lib/store/people-repository';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let telegram: FakeTelegram;
let orchestrator: Orchestrator;
const channelId = randomUUID();
const ana = { id: 4242, username: 'ana' };

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: taskScript });
  telegram = await startFakeTelegram();
});
afterAll(async () => {
  await orchestrator?.stop();
  await telegram.close();
  await model.close();
  await closeDb();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const textsTo = (chatId: number) => telegram.sent.filter((message) => message.chatId === String(chatId)).map((message) => message.text);

async function boot(): Promise<Orchestrator> {
  const app = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
  await app.start();
  return app;
}

describe('a session over Telegram', () => {
  it('pairs, talks both ways, takes a decision from a button once, and survives a restart', async () => {
    const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } });
    // Sessions a chat opens (a person's own) take the defaults: the fake model.
    await writeSettings({ ...(await readSettings()), models: { c_model: layer(), s_model: layer() } });
    await saveChannel({ id: channelId, kind: 'telegram', name: input.name, enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    orchestrator = await boot();
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 10_000 }).toBe('connected');

    // A stranger gets one code and nothing reaches a model.
    telegram.userWrites(ana, 'hello, who are you?');
    await expect.poll(() => textsTo(ana.id).length, { timeout: 10_000 }).toBe(1);
    telegram.userWrites(ana, 'please answer');
    const [pairing] = await expect.poll(() => listOpenPairings(channelId, new Date())).toHaveLength(1).then(() => listOpenPairings(channelId, new Date()));
    expect(textsTo(ana.id)[0]).toContain(pairing!.code);
    expect(pairing).toMatchObject({ sender: 'telegram:4242', senderName: '@ana', firstText: 'hello, who are you?' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(textsTo(ana.id)).toHaveLength(1);
    expect(model.requests.some((request) => JSON.stringify(request.body).includes('who are you'))).toBe(false);

    // Approved on the page: bound to the session; a second approval of the same code is refused.
    // Trusted: she decides the cards of her own conversations (a guest would not: issue 42).
    const binding = await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));
    expect(binding).toMatchObject({ sessionId: session.id, push: 'all' });
    expect(await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id }))).toBeNull();
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => textsTo(ana.id).at(-1), { timeout: 10_000 }).toMatch(/^Paired/);

    // Both directions: the message is the session's, the answer comes back.
    telegram.userWrites(ana, 'Hi there');
    await expect.poll(() => textsTo(ana.id).at(-1), { timeout: 15_000 }).toContain('You said: Hi there');

    // A card: the buttons are signed; a text saying "approve" is only a message; one press decides once.
    telegram.userWrites(ana, 'Please do it [[tools]]');
    await expect.poll(() => telegram.sent.filter((message) => message.replyMarkup?.inline_keyboard.length).length, { timeout: 15_000 }).toBeGreaterThan(0);
    const card = telegram.sent.find((message) => message.replyMarkup?.inline_keyboard.length && message.text.includes('bash'))!;
    const buttons = card.replyMarkup!.inline_keyboard.flat();
    const approve = buttons.find((button) => button.text === 'Approve')!.callback_data!;
    expect(buttons.map((button) => button.callback_data!.length).every((length) => length <= 64)).toBe(true);
    telegram.userWrites(ana, 'approve');
    telegram.userPresses(ana, card.messageId, approve.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'))); // tampered
    await expect.poll(() => telegram.callbackAnswers.length, { timeout: 10_000 }).toBe(1);
    expect(telegram.callbackAnswers[0]!.text).toMatch(/not valid/);
    const bash = async () => (await listToolCalls({ sessionId: session.id })).find((call) => call.name === 'bash');
    expect((await bash())?.status).toBe('awaiting_approval');
    telegram.userPresses(ana, card.messageId, approve);
    telegram.userPresses(ana, card.messageId, approve);
    await expect.poll(() => telegram.callbackAnswers.length, { timeout: 10_000 }).toBe(3);
    expect(telegram.callbackAnswers.slice(1).map((answer) => answer.text)).toEqual([expect.stringMatching(/approved/), expect.stringMatching(/not awaiting|already|approved|running|succeeded/i)]);
    await expect.poll(async () => (await bash())?.status, { timeout: 20_000 }).toBe('succeeded');
    const python = telegram.sent.find((message) => message.replyMarkup?.inline_keyboard.length && message.text.includes('python'))!;
    telegram.userPresses(ana, python.messageId, python.replyMarkup!.inline_keyboard.flat().find((button) => button.text === 'Approve')!.callback_data!);
    await expect.poll(() => textsTo(ana.id).some((text) => text.includes('42')), { timeout: 20_000 }).toBe(true);

    // The text "approve" was only a message: it waited for the tools' turn and got its own answer.
    await expect.poll(() => textsTo(ana.id).some((text) => text.includes('You said: approve')), { timeout: 20_000 }).toBe(true);

    // Rate limited: the provider's retry_after is honoured, then the message goes.
    await expect.poll(async () => (await outboxCounts(channelId)).pending, { timeout: 15_000 }).toBe(0);
    telegram.failNext('sendMessage', 1, { code: 429, retryAfter: 1 });
    const states: string[] = [];
    const watching = setInterval(() => void orchestrator.channels!.status(channelId).then((status) => states.push(status.state.kind)), 50);
    telegram.userWrites(ana, 'One more');
    await expect.poll(() => textsTo(ana.id).some((text) => text.includes('You said: One more')), { timeout: 15_000 }).toBe(true);
    clearInterval(watching);
    const refused = telegram.calls.findIndex((call) => call.method === 'sendMessage' && call.status === 429);
    const retried = telegram.calls.slice(refused + 1).find((call) => call.method === 'sendMessage')!;
    expect(retried.at - telegram.calls[refused]!.at).toBeGreaterThanOrEqual(1_000);
    expect(states).toContain('rate_limited');

    // A crash and a restart: a message written while the app is down is handled once; nothing sent
    // is sent again. (A graceful stop pauses sessions; a crash leaves them active, and the restart
    // starts their minds before the channels, so the message finds its session running.)
    await orchestrator.stop();
    await updateSession({ id: session.id, status: 'active' });
    const sentBefore = telegram.sent.length;
    telegram.userWrites(ana, 'While you were away');
    orchestrator = await boot();
    await expect.poll(() => textsTo(ana.id).some((text) => text.includes('You said: While you were away')), { timeout: 15_000 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const resent = telegram.sent.slice(sentBefore).filter((message) => !message.text.includes('While you were away'));
    expect(resent).toEqual([]);
    const { messages } = await readWholeSession({ sessionId: session.id });
    expect(messages.filter((message) => message.tag === 'ED_user' && message.content === 'While you were away')).toHaveLength(1);
    expect(messages.filter((message) => message.content.includes('who are you'))).toEqual([]);
    expect(await outboxCounts(channelId)).toMatchObject({ pending: 0, failed: 0 });
    expect(await listBindings({ channelId })).toHaveLength(1);
  }, 90_000);

  it('the outbox under a throttling Bot API and a restart mid-way: every message once, in order', async () => {
    const [bound] = await listBindings({ channelId });
    telegram.throttle(5);
    const before = telegram.sent.length;
    for (let index = 0; index < 20; index++) await enqueueOutbox({ channelId, address: bound!.address, payload: { text: `queued ${index}` } });
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => telegram.sent.length - before, { timeout: 10_000 }).toBeGreaterThanOrEqual(6);
    await orchestrator.stop(); // some confirmed, some not
    orchestrator = await boot();
    await expect.poll(() => telegram.sent.length - before, { timeout: 20_000 }).toBe(20);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const order = telegram.sent.slice(before).map((message) => Number(/queued (\d+)/.exec(message.text)![1]));
    expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
    const throttled = telegram.calls.filter((call) => call.method === 'sendMessage' && call.status === 429).length;
    expect(throttled).toBeGreaterThan(0);
    expect(await outboxCounts(channelId)).toMatchObject({ pending: 0, failed: 0 });
    telegram.throttle(null);
  }, 40_000);

  it("a persona's chat is the person's own session: commands, a task's question answered by replying, another chat's card refused", async () => {
    const bea = { id: 5151, username: 'bea' };
    const [session] = (await listBindings({ channelId })).map((binding) => binding.sessionId!);
    telegram.userWrites(bea, 'hi');
    const last = () => textsTo(bea.id).at(-1) ?? '';
    await expect.poll(last, { timeout: 10_000 }).toMatch(/^Pairing code/);
    await expect.poll(async () => (await listOpenPairings(channelId, new Date())).length, { timeout: 10_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, persona: 'tester', push: 'cards' }));
    orchestrator.channels!.wake(channelId);
    await expect.poll(last, { timeout: 10_000 }).toMatch(/^Paired/);
    // A persona's chat is bea's own conversation with it (issue 42): her first message opens her
    // own session of the persona — not ana's, which a graceful restart left paused.
    telegram.userWrites(bea, 'anyone there?');
    await expect.poll(async () => (await listBindings({ channelId })).find((binding) => binding.sender === 'telegram:5151')?.personId, { timeout: 10_000 }).toBeTruthy();
    const own = async () => {
      const person = (await listBindings({ channelId })).find((binding) => binding.sender === 'telegram:5151')!.personId!;
      return personalSession({ personId: person, persona: 'tester', status: 'active' });
    };
    await expect.poll(own, { timeout: 10_000 }).toBeTruthy();
    const mine = (await own())!;
    expect(mine).not.toBe(session);
    await expect.poll(() => textsTo(bea.id).join('\n'), { timeout: 15_000 }).toContain('You said: anyone there?');
    expect(await sessionPeople(mine)).toEqual([(await listBindings({ channelId })).find((binding) => binding.sender === 'telegram:5151')!.personId]);
    const { messages: anas } = await readWholeSession({ sessionId: session! });
    expect(anas.some((message) => message.content.includes('anyone there?'))).toBe(false);

    telegram.userWrites(bea, '/status');
    await expect.poll(last, { timeout: 10_000 }).toMatch(/: active \(persona tester\)$/);
    telegram.userWrites(bea, '/pause');
    await expect.poll(last, { timeout: 10_000 }).toBe('Paused.');
    telegram.userWrites(bea, 'are you there?');
    await expect.poll(last, { timeout: 10_000 }).toMatch(/^Not delivered: &quot;.*&quot; is paused\. Send \/resume, then write again\.$/);
    expect((await orchestrator.mindState(mine))?.running ?? false).toBe(false);
    telegram.userWrites(bea, '/resume');
    await expect.poll(last, { timeout: 10_000 }).toBe('Resumed.');
    await orchestrator.resumeSession(session!); // ana's, for the card below

    // A task's question reaches the chat (even pushing cards only) and a reply to it answers it.
    const task = await orchestrator.tasks.submit(mine, submitTaskSchema.parse({ goal: 'Pick a colour [[ask]]' }));
    await expect.poll(last, { timeout: 15_000 }).toContain('asks: Which colour?');
    const question = telegram.sent.filter((message) => message.chatId === String(bea.id)).at(-1)!;
    telegram.userWrites(bea, 'teal', question.messageId);
    await expect.poll(async () => (await findTask(task.id))?.result, { timeout: 15_000 }).toBe('Colour chosen: teal');

    // A button signed for a card sent to another chat: refused, nothing decided.
    telegram.userWrites(ana, 'One more card [[tools]]');
    await expect.poll(() => telegram.sent.filter((message) => message.chatId === String(ana.id) && message.replyMarkup?.inline_keyboard.length).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(4);
    const rows = await (await getDb()).channelOutbox.findMany({ where: { channelId, address: String(ana.id) }, orderBy: { id: 'desc' } });
    const card = rows.find((row) => row.payload.includes('"card"'))!;
    const secret = ((await listChannels()).find((channel) => channel.id === channelId)!.config as { callback_secret: string }).callback_secret;
    const answers = telegram.callbackAnswers.length;
    telegram.userPresses(bea, question.messageId, signCallback(secret, channelId, card.id, 'approve'));
    await expect.poll(() => telegram.callbackAnswers.length, { timeout: 10_000 }).toBe(answers + 1);
    expect(telegram.callbackAnswers.at(-1)!.text).toMatch(/not valid here|No card/);
    const callId = (JSON.parse(card.payload) as { card: { callId: string } }).card.callId;
    expect((await listToolCalls({ sessionId: session! })).find((call) => call.id === callId)?.status).toBe('awaiting_approval');
  }, 60_000);
});
