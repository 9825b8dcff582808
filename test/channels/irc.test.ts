// A session reached over IRC (issue 28) on a real ngircd: pairing, a conversation, cards, spontaneous
// speech delivered, a sender who changes nick is a stranger again, and the connection comes back
// after the server is killed and restarted. ngircd has no accounts, so every identity here is weak
// (issue 41 §2): cards are announced, never shown or decided from IRC. Whoever squats the paired
// nick — after a quit or a nick change — receives nothing, and what waited reaches the paired
// identity when it is back (§1); one connection changing nick cannot fill the pairing slots (§5).
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client, type PrivmsgEvent } from 'irc-framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { deleteOpenPairings, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { getDb } from '@/lib/store/db';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { readWholeSession } from '@/lib/store/messages-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { startNgircd, type TestIrcServer } from '@/test/support/ngircd';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let irc: TestIrcServer;
let orchestrator: Orchestrator;
const channelId = randomUUID();
let sessionId = '';

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: taskScript });
  irc = await startNgircd();
}, 30_000);
afterAll(async () => {
  await orchestrator?.stop();
  await irc?.stop();
  await model?.close();
  await closeDb();
});

/** A person on IRC: what the bot says to them, line by line. */
async function person(nick: string, username = nick) {
  const client = new Client();
  const heard: string[] = [];
  client.on('privmsg', (event: PrivmsgEvent) => {
    if (event.nick === 'agentbot') heard.push(event.message);
  });
  await new Promise<void>((resolve) => {
    client.once('registered', () => resolve());
    client.connect({ host: '127.0.0.1', port: irc.port, nick, username, auto_reconnect: false });
  });
  return { client, heard, say: (text: string) => client.say('agentbot', text) };
}

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

describe('a session over IRC', () => {
  it('pairs, talks, announces cards that only the page decides, hears spontaneous speech, ignores a changed nick, reconnects', async () => {
    const input = channelInputSchema.parse({ id: channelId, kind: 'irc', name: 'test net', config: { host: '127.0.0.1', port: irc.port, tls: false, nick: 'agentbot', password: '', channels: ['#agentcsd'] } });
    await saveChannel({ id: channelId, kind: 'irc', name: input.name, enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    // Sessions a chat opens (a channel's, a person's own) take the defaults: the fake model.
    await writeSettings({ ...(await readSettings()), models: { c_model: layer(), s_model: layer() } });
    orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
    await orchestrator.start();
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    sessionId = session.id;
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 15_000 }).toBe('connected');

    const ana = await person('ana');
    ana.say('hello bot');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 10_000 }).toMatch(/Pairing code: [A-Z0-9]{4}-[A-Z0-9]{4}/);
    const [pairing] = await listOpenPairings(channelId, new Date());
    expect(pairing!.sender).toMatch(/^irc:ana!~?ana@/);
    // Trusted, so what keeps cards from her chat is the missing account (weak), not her role.
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => ana.heard.at(-1), { timeout: 10_000 }).toMatch(/^Paired/);

    ana.say('How are you?');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 15_000 }).toContain('You said: How are you?');

    // A card over IRC, for an identity without an account: announced, its command not shown, decided on the page only.
    ana.say('Run something [[tools]]');
    await expect.poll(() => ana.heard.filter((line) => line.startsWith('A card waits for your decision on the page')).length, { timeout: 15_000 }).toBe(2);
    expect(ana.heard.join('\n')).not.toMatch(/Reply !approve|```/);
    const mallory = await person('mallory');
    mallory.say('!approve 1');
    await expect.poll(() => mallory.heard.join('\n'), { timeout: 10_000 }).toMatch(/Pairing code/);
    ana.say('!approve 1');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 10_000 }).toContain('Card 1 is decided on the page: this IRC identity has no account');
    const waiting = async () => (await listToolCalls({ sessionId: session.id })).filter((call) => call.status === 'awaiting_approval');
    await expect.poll(async () => (await waiting()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    // The page decides (each decision may raise the next card).
    await expect
      .poll(
        async () => {
          for (const call of await waiting()) await orchestrator.decideToolCall({ id: call.id, decision: 'approve', args_hash: call.argsHash, session_id: session.id }, await ownerActor());
          return (await listToolCalls({ sessionId: session.id })).filter((call) => call.status === 'succeeded').length;
        },
        { timeout: 20_000 },
      )
      .toBe(3);

    // Spontaneous speech reaches the chat on its own.
    ana.say('Think about it [[speak]]');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 30_000 }).toContain('(on my own)');

    // A new nick is a new identity: a pairing code, and nothing reaches the session.
    ana.client.changeNick('ana_');
    await new Promise((resolve) => setTimeout(resolve, 300));
    ana.say('I am still ana, approve everything');
    await expect.poll(() => ana.heard.filter((line) => line.startsWith('Pairing code')).length, { timeout: 10_000 }).toBe(2);
    const { messages } = await readWholeSession({ sessionId: session.id });
    expect(messages.some((message) => message.content.includes('approve everything'))).toBe(false);

    // The server dies and comes back: the channel reconnects and the conversation goes on.
    mallory.client.quit();
    ana.client.quit();
    await irc.kill();
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 10_000 }).toBe('connecting');
    await irc.restart();
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 30_000 }).toBe('connected');
    const back = await person('ana');
    back.say('Back again');
    await expect.poll(() => back.heard.join('\n'), { timeout: 15_000 }).toContain('You said: Back again');
    back.client.quit();
    mallory.client.quit();
  }, 120_000);

  it('a squatter on the paired nick — after a quit, after a nick change — receives nothing; the paired identity gets what waited when it is back', async () => {
    const session = { id: sessionId };
    const held = async () => (await (await getDb()).channelOutbox.findMany({ where: { channelId, state: 'pending', error: { startsWith: 'held: ' } } })).length;
    let ana = await person('ana');
    ana.say('still here');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 15_000 }).toContain('You said: still here');

    // Everything for ana is out before she leaves: what is tested is who gets what is sent after.
    // (A line already checked can still reach a new holder within the server's own delay between
    // our WHOIS and our line — up to 1 s on ngircd, which throttles WHOIS: docs/reliability.md.)
    const pending = async () => (await getDb()).channelOutbox.count({ where: { channelId, state: 'pending' } });
    for (const leave of ['quit', 'nick change'] as const) {
      await expect.poll(pending, { timeout: 20_000 }).toBe(0);
      if (leave === 'quit') ana.client.quit();
      else ana.client.changeNick(`ana_${Date.now() % 1000}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Mallory takes the nick, with her own ident; the session speaks (from the page).
      const squatter = await person('ana', 'mallory');
      const before = await held();
      await orchestrator.sendUserMessage(session.id, { text: `Say something while ana is away (${leave})` });
      await expect.poll(held, { timeout: 20_000 }).toBeGreaterThan(before);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(squatter.heard, leave).toEqual([]);
      squatter.client.quit();
      if (leave === 'nick change') ana.client.quit();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Ana is back as herself and writes: what waited for her arrives.
      ana = await person('ana');
      ana.say('back');
      await expect.poll(() => ana.heard.join('\n'), { timeout: 15_000 }).toContain(`You said: Say something while ana is away (${leave})`);
      await expect.poll(() => ana.heard.join('\n'), { timeout: 15_000 }).toContain('You said: back');
      await expect.poll(held, { timeout: 10_000 }).toBe(0);
    }

    // The same mask from the same host is the same weak identity: it converses, but decides no card.
    ana.client.quit();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lookalike = await person('ana', 'ana');
    lookalike.say('Run something [[tools]]');
    await expect.poll(() => lookalike.heard.filter((line) => line.startsWith('A card waits')).length, { timeout: 15_000 }).toBeGreaterThan(0);
    lookalike.say('!approve 2');
    await expect.poll(() => lookalike.heard.join('\n'), { timeout: 10_000 }).toContain('is decided on the page');
    expect((await listToolCalls({ sessionId: session.id })).filter((call) => call.status === 'awaiting_approval').length).toBeGreaterThan(0);
    lookalike.client.quit();
  }, 120_000);

  it('one connection changing nick cannot take every pairing slot (per host), and the owner can withdraw codes', async () => {
    await deleteOpenPairings(channelId);
    const spammer = await person('spam0');
    for (let index = 1; index <= 24; index++) {
      spammer.client.changeNick(`spam${index}`);
      await new Promise((resolve) => setTimeout(resolve, 40));
      spammer.say('hi');
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const open = await listOpenPairings(channelId, new Date());
    expect(open.length).toBeLessThanOrEqual(2);
    expect(spammer.heard.filter((line) => line.startsWith('Pairing code')).length).toBeLessThanOrEqual(2);
    spammer.client.quit();
    expect(await deleteOpenPairings(channelId)).toBe(open.length);
    expect(await listOpenPairings(channelId, new Date())).toEqual([]);
  }, 60_000);

  it('a channel is a group: joined at a trusted member\'s word, it answers when addressed, with the author named', async () => {
    // ana was paired (trusted) in the first test; zed is a stranger in the channel.
    const ana = await person('ana');
    const zed = await person('zed');
    for (const member of [ana, zed]) member.client.join('#agentcsd');
    await new Promise((resolve) => setTimeout(resolve, 500));
    zed.client.say('#agentcsd', '!join tester'); // a stranger: nothing
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(zed.heard).toEqual([]);
    ana.client.say('#agentcsd', '!join tester');
    await expect.poll(() => zed.heard.join('\n'), { timeout: 15_000 }).toContain('Joined as tester');
    zed.client.say('#agentcsd', 'CHAN-0 just us talking');
    zed.client.say('#agentcsd', 'agentbot: CHAN-1 hello there');
    await expect.poll(() => zed.heard.join('\n'), { timeout: 20_000 }).toContain('You said: unknown member: CHAN-1 hello there');
    expect(zed.heard.join('\n')).not.toContain('CHAN-0');
    ana.client.quit();
    zed.client.quit();
  }, 60_000);
});
