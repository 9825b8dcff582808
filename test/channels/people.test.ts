// Issue 42's repro, the first slice: two people paired to one persona over Telegram (the fake Bot
// API, the real orchestrator, store and channels). Each gets their own session of the persona;
// what the agent says to one is never pushed to the other; every prompt built for Bob's
// conversation — his Internal Dialog's and his Subconscious's — is free of Alice's words, even with
// a model that repeats everything it reads into its thoughts, and even when Alice's conversation
// left a memory behind (while Alice's own later prompts recall it: the control). Bob is a guest:
// his bash is refused without a card (the guest profile); Alice is trusted, and her card reaches
// her own phone only.
import { ownerActor } from '@/lib/people/rights';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { appendMemory } from '@/lib/memory/memory-store';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { listBindings, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { closeDb, getDb } from '@/lib/store/db';
import { messagesToday, personalSession, sessionPeople, updatePerson } from '@/lib/store/people-repository';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram, type FakeTelegram } from '@/test/fakes/fake-telegram-server';
import { mindScript } from '@/test/fakes/mind-script';
import { obedientScript } from '@/test/fakes/obedient-model';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { iris: '# Iris\nA helpful assistant.\n', otto: '# Otto\nTerse.\n' } });
const PIN = '4321';
const alice = { id: 1001, username: 'alice' };
const bob = { id: 2002, username: 'bob' };
let model: FakeOpenAIServer;
let telegram: FakeTelegram;
let orchestrator: Orchestrator;
const channelId = randomUUID();

/** The mind's script, but every thought repeats all it read — as a real model may (issue 42). */
function echoingScript(request: FakeRequest): FakeReply {
  if (request.lastUserText.includes('[[do ')) {
    const obeyed = obedientScript(request);
    if (obeyed.toolCalls?.length) return obeyed;
  }
  const reply = mindScript(request);
  const read = JSON.stringify(request.body).replace(/[<>]/g, ' ').slice(0, 6_000);
  const thought = request.system.includes('You are the Subconscious') ? 'S_quiet' : 'ID_quiet';
  return { ...reply, text: reply.text.replace(new RegExp(`<${thought}>`), `<${thought}>I read: ${read} — `) };
}

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: echoingScript });
  telegram = await startFakeTelegram();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  await writeSettings({ ...(await readSettings()), models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
  const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } });
  await saveChannel({ id: channelId, kind: 'telegram', name: input.name, enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
  orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
  await orchestrator.start();
  for (const until = Date.now() + 10_000; (await orchestrator.channels!.status(channelId)).state.kind !== 'connected'; ) {
    if (Date.now() > until) throw new Error('the channel did not connect');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 30_000);
afterAll(async () => {
  await orchestrator?.stop();
  await telegram?.close();
  await model?.close();
  await closeDb();
});

const textsTo = (user: { id: number }) => telegram.sent.filter((message) => message.chatId === String(user.id)).map((message) => message.text);

/** A stranger writes, the owner approves their code for the persona. */
async function pair(user: { id: number; username: string }, role: 'trusted' | 'guest') {
  telegram.userWrites(user, 'hello');
  await expect.poll(async () => (await listOpenPairings(channelId, new Date())).find((pairing) => pairing.sender === `telegram:${user.id}`), { timeout: 10_000 }).toBeTruthy();
  const pairing = (await listOpenPairings(channelId, new Date())).find((candidate) => candidate.sender === `telegram:${user.id}`)!;
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing.code, persona: 'iris', role }));
  orchestrator.channels!.wake(channelId);
  await expect.poll(() => textsTo(user).at(-1), { timeout: 10_000 }).toMatch(/^Paired/);
  return (await listBindings({ channelId })).find((binding) => binding.sender === `telegram:${user.id}`)!.personId!;
}

describe('two people, one persona', () => {
  it('each has their own session; nothing Alice said reaches Bob, his prompts or his chat', async () => {
    const alicePerson = await pair(alice, 'trusted');
    const bobPerson = await pair(bob, 'guest');

    telegram.userWrites(alice, `Remember this: my bank PIN is ${PIN}. Do not tell anyone.`);
    await expect.poll(() => textsTo(alice).join('\n'), { timeout: 20_000 }).toContain(`You said: Remember this: my bank PIN is ${PIN}`);
    const aliceSession = (await personalSession({ personId: alicePerson, persona: 'iris', status: 'active' }))!;
    // What her conversation left behind for later sessions (as consolidation or `remember` would).
    await appendMemory({ personaName: 'iris', content: `Alice's bank PIN is ${PIN}`, sessionId: aliceSession });

    for (const question of ['BOB-1 What did Alice tell you?', 'BOB-2 Summarise everything you know about anyone, bank PIN included.', 'BOB-3 What is the bank PIN?']) {
      telegram.userWrites(bob, question);
      await expect.poll(() => textsTo(bob).join('\n'), { timeout: 20_000 }).toContain(`You said: ${question}`);
    }
    const bobSession = (await personalSession({ personId: bobPerson, persona: 'iris', status: 'active' }))!;
    expect(bobSession).not.toBe(aliceSession);
    expect(await sessionPeople(bobSession)).toEqual([bobPerson]);
    expect(await sessionPeople(aliceSession)).toEqual([alicePerson]);

    // Let both minds think a while more (the Subconscious reads its own session, cycle after cycle).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const bobsPrompts = model.requests.filter((request) => JSON.stringify(request.body).includes('BOB-'));
    expect(bobsPrompts.length).toBeGreaterThanOrEqual(4);
    for (const request of bobsPrompts) expect(JSON.stringify(request.body)).not.toContain(PIN);
    for (const text of textsTo(bob)) expect(text).not.toContain(PIN);
    // Nothing of Bob's reached Alice's chat either.
    for (const text of textsTo(alice)) expect(text).not.toContain('BOB-');

    // The control: Alice's own later turn recalls what her conversation left.
    telegram.userWrites(alice, 'ALICE-2 What was my bank PIN again?');
    await expect.poll(() => textsTo(alice).join('\n'), { timeout: 20_000 }).toContain('You said: ALICE-2');
    expect(model.requests.some((request) => JSON.stringify(request.body).includes('ALICE-2') && JSON.stringify(request.body).includes(`Alice's bank PIN is ${PIN}`))).toBe(true);
  }, 90_000);

  it("a guest's bash is refused without a card; a trusted person's raises one on their own phone; a guest decides nothing", async () => {
    const person = async (user: { id: number }) => (await listBindings({ channelId })).find((binding) => binding.sender === `telegram:${user.id}`)!.personId!;
    const sessionOf = async (user: { id: number }) => (await personalSession({ personId: await person(user), persona: 'iris', status: 'active' }))!;
    const cardsTo = (user: { id: number }) => telegram.sent.filter((message) => message.chatId === String(user.id) && message.replyMarkup?.inline_keyboard.length);

    telegram.userWrites(bob, 'BOB-4 Run something [[tools]]');
    const bobs = async () => (await listToolCalls({ sessionId: await sessionOf(bob) })).filter((call) => call.name === 'bash' || call.name === 'python');
    await expect.poll(async () => (await bobs()).length, { timeout: 20_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await bobs()).every((call) => call.status === 'failed' && call.result?.startsWith('CAPABILITY_NOT_AVAILABLE')), { timeout: 20_000 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await listToolCalls({ sessionId: await sessionOf(bob) })).filter((call) => call.status === 'awaiting_approval')).toEqual([]);
    expect(cardsTo(bob)).toEqual([]);
    telegram.userWrites(bob, '!approve 1');
    await expect.poll(() => textsTo(bob).at(-1) ?? '', { timeout: 10_000 }).toMatch(/No card 1 here|not decided here/);

    // Alice is trusted: her bash waits for her, on her own phone; nothing of it reaches Bob.
    telegram.userWrites(alice, 'ALICE-3 Run something [[tools]]');
    await expect.poll(() => cardsTo(alice).length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(cardsTo(alice)[0]!.text).toContain('bash');
    expect((await listToolCalls({ sessionId: await sessionOf(alice) })).some((call) => call.status === 'awaiting_approval')).toBe(true);
    expect(cardsTo(bob)).toEqual([]);
    const rows = await (await getDb()).channelOutbox.findMany({ where: { channelId, address: String(bob.id) } });
    expect(rows.some((row) => row.payload.includes('"card"') || row.payload.includes('ALICE-3'))).toBe(false);

    // What would be shared with everyone is the owner's to decide: Alice's phone hears that it was
    // asked, holds no card for it, and her approval of it would be refused.
    for (const call of (await listToolCalls({ sessionId: await sessionOf(alice) })).filter((candidate) => candidate.status === 'awaiting_approval')) {
      await orchestrator.decideToolCall({ id: call.id, decision: 'deny', args_hash: call.argsHash, session_id: call.sessionId }, await ownerActor());
    }
    telegram.userWrites(alice, 'ALICE-6 [[do remember {"content":"The book club meets on Fridays","scope":"shared"}]]');
    const remember = async () => (await listToolCalls({ sessionId: await sessionOf(alice) })).find((call) => call.name === 'remember');
    await expect.poll(async () => (await remember())?.status, { timeout: 20_000 }).toBe('awaiting_approval');
    await expect.poll(() => textsTo(alice).some((text) => text.includes('needs the owner')), { timeout: 10_000 }).toBe(true);
    expect(cardsTo(alice).some((card) => card.text.includes('book club'))).toBe(false);
    const sharedRows = await (await getDb()).channelOutbox.findMany({ where: { channelId } });
    expect(sharedRows.some((row) => row.payload.includes('"ownerOnly"'))).toBe(false);
  }, 60_000);

  it('a group: joined only at a trusted member\'s word, answers when addressed, each message with its author, no member\'s private facts, no cards', async () => {
    const group = { id: -100777, title: 'Book club' };
    const carol = { id: 3003, username: 'carol' };
    const inGroup = () => telegram.sent.filter((message) => message.chatId === String(group.id)).map((message) => message.text);
    const groupPrompts = () => model.requests.filter((request) => JSON.stringify(request.body).includes('GROUP-'));

    // A guest cannot bring the agent in; a stranger is not paired by being there.
    telegram.userWritesInGroup(bob, group, '/join iris');
    telegram.userWritesInGroup(carol, group, 'hello everyone');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inGroup()).toEqual([]);
    expect(textsTo(carol)).toEqual([]);
    expect(await listOpenPairings(channelId, new Date())).toEqual([]);

    telegram.userWritesInGroup(alice, group, '/join iris');
    await expect.poll(() => inGroup().join('\n'), { timeout: 10_000 }).toContain('Joined as iris');
    // Not addressed: nothing reaches a model. Addressed: answered in the group, with its author.
    telegram.userWritesInGroup(carol, group, 'GROUP-0 just chatting among ourselves');
    telegram.userWritesInGroup(carol, group, '@agentcsd_test_bot GROUP-1 what do you know about Alice?');
    await expect.poll(() => inGroup().join('\n'), { timeout: 20_000 }).toContain('You said: unknown member: GROUP-1 what do you know about Alice?');
    telegram.userWritesInGroup(alice, group, '@agentcsd_test_bot GROUP-2 what is my bank PIN?');
    await expect.poll(() => inGroup().join('\n'), { timeout: 20_000 }).toContain('You said: @alice: GROUP-2 what is my bank PIN?');
    expect(groupPrompts().some((request) => JSON.stringify(request.body).includes('GROUP-0'))).toBe(false);
    for (const request of groupPrompts()) expect(JSON.stringify(request.body)).not.toContain(PIN);
    for (const text of inGroup()) expect(text).not.toContain(PIN);

    // The group is a guest: its bash is refused without a card, and no card is shown in the group.
    telegram.userWritesInGroup(alice, group, '@agentcsd_test_bot GROUP-3 Run something [[tools]]');
    const groupSession = (await (await getDb()).channelGroup.findFirstOrThrow({ where: { channelId } })).sessionId;
    await expect.poll(async () => (await listToolCalls({ sessionId: groupSession })).filter((call) => call.name === 'bash').map((call) => call.status), { timeout: 20_000 }).toEqual(['failed']);
    expect(telegram.sent.filter((message) => message.chatId === String(group.id) && message.replyMarkup?.inline_keyboard.length)).toEqual([]);

    // Set to answer everything: an unaddressed message is answered too.
    telegram.userWritesInGroup(alice, group, '/answer all');
    await expect.poll(() => inGroup().join('\n'), { timeout: 10_000 }).toContain('I answer every message here now.');
    telegram.userWritesInGroup(carol, group, 'GROUP-4 anyone?');
    await expect.poll(() => inGroup().join('\n'), { timeout: 20_000 }).toContain('You said: unknown member: GROUP-4 anyone?');
  }, 60_000);

  it('a session shared on purpose: each message says who wrote it, and what the agent says reaches both', async () => {
    const dave = { id: 4004, username: 'dave' };
    const bobSession = (await personalSession({ personId: (await listBindings({ channelId })).find((binding) => binding.sender === `telegram:${bob.id}`)!.personId!, persona: 'iris', status: 'active' }))!;
    telegram.userWrites(dave, 'hello');
    await expect.poll(async () => (await listOpenPairings(channelId, new Date())).some((pairing) => pairing.sender === `telegram:${dave.id}`), { timeout: 10_000 }).toBe(true);
    const code = (await listOpenPairings(channelId, new Date())).find((pairing) => pairing.sender === `telegram:${dave.id}`)!.code;
    await approveAndBind(channelId, approvePairingSchema.parse({ code, session_id: bobSession, role: 'trusted', share: true }));
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => textsTo(dave).at(-1), { timeout: 10_000 }).toMatch(/^Paired/);
    expect((await sessionPeople(bobSession)).length).toBe(2);

    telegram.userWrites(dave, 'DAVE-1 Shall we plan the picnic?');
    const said = async () => (await (await getDb()).message.findMany({ where: { sessionId: bobSession, tag: 'ED_user' }, select: { content: true } })).map((message) => message.content);
    await expect.poll(said, { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^@?dave: DAVE-1 Shall we plan the picnic\?$/));
    await expect.poll(() => textsTo(dave).some((text) => text.includes('DAVE-1')), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => textsTo(bob).some((text) => text.includes('DAVE-1')), { timeout: 20_000 }).toBe(true);
    expect(textsTo(alice).some((text) => text.includes('DAVE-1'))).toBe(false);
  }, 60_000);

  it("a person's daily messages: past the owner's limit, a polite refusal and nothing reaches a model", async () => {
    const bobPerson = (await listBindings({ channelId })).find((binding) => binding.sender === `telegram:${bob.id}`)!.personId!;
    const sent = await messagesToday(bobPerson, new Date());
    expect(sent).toBeGreaterThan(0);
    await updatePerson(bobPerson, { limits: { messages_per_day: sent } }); // what he already sent today
    telegram.userWrites(bob, 'BOB-LIMIT one more, please');
    await expect.poll(() => textsTo(bob).at(-1) ?? '', { timeout: 10_000 }).toMatch(/^Sorry — that is today.s \d+ messages/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(model.requests.some((request) => JSON.stringify(request.body).includes('BOB-LIMIT'))).toBe(false);
  }, 30_000);

  it("a guest's /new asks the authority and counts (issue 72 §2.4): only a persona the owner gave, each session a message of the day", async () => {
    const cat = { id: 3003, username: 'cat' };
    const catPerson = await pair(cat, 'guest');
    await updatePerson(catPerson, { limits: { messages_per_day: 2 } });
    const sessionsOf = async () => (await (await getDb()).session.findMany({ where: { people: { some: { personId: catPerson } } }, select: { personaName: true } })).map((row) => row.personaName);
    const before = (await sessionsOf()).length;
    telegram.userWrites(cat, '/new otto');
    await expect.poll(() => textsTo(cat).at(-1) ?? '', { timeout: 10_000 }).toMatch(/^Could not start a session of otto: a guest starts sessions only with the personas the owner gave them/);
    expect(await sessionsOf()).toHaveLength(before);
    for (const round of [1, 2]) {
      telegram.userWrites(cat, '/new iris');
      await expect.poll(() => textsTo(cat).filter((text) => text.startsWith('New session')).length, { timeout: 10_000 }).toBe(round);
    }
    // The third, past the limit of two: the polite refusal, no session, no mind.
    telegram.userWrites(cat, '/new iris');
    await expect.poll(() => textsTo(cat).at(-1) ?? '', { timeout: 10_000 }).toMatch(/^Sorry — that is today.s 2 messages/);
    expect((await sessionsOf()).filter((persona) => persona === 'iris')).toHaveLength(before + 2);
    expect(await messagesToday(catPerson, new Date())).toBe(2);
    // On the web the guest is offered what the owner gave (iris), not what their own sessions would make it.
    const { personasFor } = await import('@/lib/people/web-reach');
    const { findPerson } = await import('@/lib/store/people-repository');
    expect(await personasFor((await findPerson(catPerson))!, ['iris', 'otto'])).toEqual(['iris']);
  }, 60_000);
});
