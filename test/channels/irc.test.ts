// A session reached over IRC (issue 28) on a real ngircd: pairing, a conversation, a card approved
// with `!approve`, spontaneous speech delivered, a sender who changes nick is a stranger again,
// and the connection comes back after the server is killed and restarted.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client, type PrivmsgEvent } from 'irc-framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
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
async function person(nick: string) {
  const client = new Client();
  const heard: string[] = [];
  client.on('privmsg', (event: PrivmsgEvent) => {
    if (event.nick === 'agentbot') heard.push(event.message);
  });
  await new Promise<void>((resolve) => {
    client.once('registered', () => resolve());
    client.connect({ host: '127.0.0.1', port: irc.port, nick, username: nick, auto_reconnect: false });
  });
  return { client, heard, say: (text: string) => client.say('agentbot', text) };
}

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

describe('a session over IRC', () => {
  it('pairs, talks, approves a card with !approve, hears spontaneous speech, ignores a changed nick, reconnects', async () => {
    const input = channelInputSchema.parse({ id: channelId, kind: 'irc', name: 'test net', config: { host: '127.0.0.1', port: irc.port, tls: false, nick: 'agentbot', password: '', channels: ['#agentcsd'] } });
    await saveChannel({ id: channelId, kind: 'irc', name: input.name, enabled: true, config: mergeChannelConfig(input, null) });
    orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
    await orchestrator.start();
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 15_000 }).toBe('connected');

    const ana = await person('ana');
    ana.say('hello bot');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 10_000 }).toMatch(/Pairing code: [A-Z0-9]{4}-[A-Z0-9]{4}/);
    const [pairing] = await listOpenPairings(channelId, new Date());
    expect(pairing!.sender).toMatch(/^irc:ana!~?ana@/);
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id }));
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => ana.heard.at(-1), { timeout: 10_000 }).toMatch(/^Paired/);

    ana.say('How are you?');
    await expect.poll(() => ana.heard.join('\n'), { timeout: 15_000 }).toContain('You said: How are you?');

    // A card over IRC: its number, decided with !approve from the bound sender only.
    ana.say('Run something [[tools]]');
    await expect.poll(() => ana.heard.filter((line) => line.startsWith('Reply !approve')).length, { timeout: 15_000 }).toBe(2);
    const numbers = ana.heard.filter((line) => line.startsWith('Reply !approve')).map((line) => Number(/!approve (\d+)/.exec(line)![1]));
    const mallory = await person('mallory');
    mallory.say(`!approve ${numbers[0]}`);
    await expect.poll(() => mallory.heard.join('\n'), { timeout: 10_000 }).toMatch(/Pairing code/);
    for (const number of numbers) ana.say(`!approve ${number}`);
    await expect.poll(async () => (await listToolCalls({ sessionId: session.id })).filter((call) => call.status === 'succeeded').length, { timeout: 20_000 }).toBe(3);
    ana.say(`!approve ${numbers[0]}`); // again: answered with the state it is in, decided nothing
    const answers = () => ana.heard.filter((line) => line.startsWith(`Card ${numbers[0]}: `));
    await expect.poll(() => answers().length, { timeout: 10_000 }).toBe(2);
    expect(answers()[0]).toBe(`Card ${numbers[0]}: approved.`);
    expect(answers()[1]).not.toMatch(/approved\.$/);

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
});
