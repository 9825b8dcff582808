// A message that reaches an active session while no process holds it (its holder died, the
// survivor has not taken it over yet): the orchestrator refuses it as it refuses a paused one.
// A mail (its provider hands it over again from the cursor) must then be thrown back, not answered
// "paused" and dropped — the email cluster test lost 1 mail in 12 that way; a chat is told to
// write again; a session really paused still gets the paused reply. The host is the real
// orchestrator's, refusing the first hand-over as the cluster's placement does.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleMessage } from '@/lib/channels/channel-inbound';
import type { ChannelHost, InboundMessage } from '@/lib/channels/channel-types';
import { SessionPausedError } from '@/lib/mind/session-errors';
import { channelHost } from '@/lib/orchestrator/channel-host';
import { startOrchestrator, stopOrchestrator, type Orchestrator } from '@/lib/orchestrator/orchestrator';
import { dueOutbox, saveBinding, saveChannel } from '@/lib/store/channels-repository';
import { closeDb } from '@/lib/store/db';
import { readWholeSession } from '@/lib/store/messages-repository';
import { personForSender } from '@/lib/store/people-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let orchestrator: Orchestrator;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: () => ({ text: '<ID_loud>noted</ID_loud>' }) });
  orchestrator = await startOrchestrator();
});
afterAll(async () => {
  await stopOrchestrator();
  await model?.close();
  await closeDb();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

/** The orchestrator's host, whose first `refusals` hand-overs find the session held by no process. */
function between(refusals: number): ChannelHost {
  const host = channelHost(orchestrator);
  let left = refusals;
  return {
    ...host,
    sendUserMessage: (sessionId, text, options) => {
      if (left-- > 0) return Promise.reject(new SessionPausedError(sessionId));
      return host.sendUserMessage(sessionId, text, options);
    },
  };
}

/** A channel of this kind (never connected: the test hands its messages in) with Ana bound to the session. */
async function boundChat(kind: 'email' | 'telegram', sessionId: string) {
  const channelId = randomUUID();
  const config =
    kind === 'email'
      ? { address: 'agent@example.org', imap: { host: '127.0.0.1', port: 1, tls: false, user: 'agent' }, smtp: { host: '127.0.0.1', port: 1, tls: false, user: 'agent' } }
      : { token: '1:x', api_root: 'http://127.0.0.1:1', callback_secret: 's' };
  const channel = await saveChannel({ id: channelId, kind, name: kind, enabled: false, config });
  const sender = `${kind}:${randomUUID().slice(0, 8)}`;
  const person = await personForSender({ sender, name: 'Ana', role: 'trusted' });
  await saveBinding({ id: randomUUID(), channelId, sender, senderName: 'Ana', address: 'ana', sessionId, persona: null, push: 'all', quietHours: null, personId: person.id });
  return { channel, sender };
}

const said = async (sessionId: string, words: string) => (await readWholeSession({ sessionId })).messages.filter((message) => message.tag === 'ED_user' && message.content.includes(words));

describe('a message while its active session moves between processes', () => {
  it('a mail is thrown back to be handed over again, then kept once; nothing tells Ana it was not delivered', async () => {
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const { channel, sender } = await boundChat('email', session.id);
    const host = between(1);
    const context = { channel, host, counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() };
    expect(channel.kind).toBe('email');
    const mail: InboundMessage = { sender, senderName: 'Ana', address: 'ana', text: 'Message-ID <m1@example.org>: the build is green', mayRepeat: true };
    await expect(handleMessage(context, mail)).rejects.toBeInstanceOf(SessionPausedError);
    expect(await said(session.id, 'the build is green')).toHaveLength(0);
    await handleMessage(context, mail); // the provider's next hand-over, from the same cursor
    await handleMessage(context, mail); // and one more after a crash: recognised, not kept twice
    expect(await said(session.id, 'the build is green')).toHaveLength(1);
    expect(await dueOutbox(channel.id, new Date(Date.now() + 1_000))).toEqual([]);
  });

  it('a chat message is answered "write again", not "paused"; a session really paused still says so', async () => {
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const { channel, sender } = await boundChat('telegram', session.id);
    const context = { channel, host: between(1), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() };
    await handleMessage(context, { sender, senderName: 'Ana', address: 'ana', text: 'are you there?' });
    const [moving] = await dueOutbox(channel.id, new Date(Date.now() + 1_000));
    expect(moving!.payload.text).toBe(`Not delivered: "${session.name}" is moving between processes. Write again in a moment.`);

    await orchestrator.pauseSession(session.id);
    const paused = await boundChat('email', session.id);
    const mailContext = { ...context, channel: paused.channel, host: channelHost(orchestrator) };
    await handleMessage(mailContext, { sender: paused.sender, senderName: 'Ana', address: 'ana', text: 'Message-ID <m2@example.org>: hello', mayRepeat: true });
    const [answer] = await dueOutbox(paused.channel.id, new Date(Date.now() + 1_000));
    expect(answer!.payload.text).toMatch(/is paused\. Send \/resume, then write again\./);
  });
});
