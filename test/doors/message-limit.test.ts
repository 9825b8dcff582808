// One rule for a message, on every entry (issue 72 §3): the messages route, the OpenAI, MCP and ACP
// doors and a chat refuse a message past 20,000 characters, or one holding NUL, in the same words —
// the chat says so instead of cutting it at 16,000 — and nothing of it is stored; one at the limit
// goes through. The real routes, doors over loopback HTTP, channel inbound and store.
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keysRoute from '@/app/api/keys/route';
import * as messagesRoute from '@/app/api/sessions/[id]/messages/route';
import { handleMessage } from '@/lib/channels/channel-inbound';
import { MESSAGE_MAX_CHARS, messageRefusal } from '@/lib/config/message-text';
import { agentMessageSchema } from '@/lib/http/agent-door';
import { channelHost } from '@/lib/orchestrator/channel-host';
import { getOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { dueOutbox, saveBinding, saveChannel } from '@/lib/store/channels-repository';
import { readWholeSession } from '@/lib/store/messages-repository';
import { personForSender } from '@/lib/store/people-repository';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startMindAndDoors, type startDoorServer } from './door-server';

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n' } });
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;
let secret = '';
const LONG = 'x'.repeat(MESSAGE_MAX_CHARS + 1);
const TOO_LONG = `a message must be at most 20,000 characters`;

beforeAll(async () => {
  ({ model, door } = await startMindAndDoors());
  const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'laptop', personas: ['iris'] }) }), {});
  secret = ((await made.json()) as { key: { secret: string } }).key.secret;
}, 60_000);

afterAll(async () => {
  await door?.close();
  await stopOrchestrator();
  await model?.close();
});

const stored = async (sessionId: string, needle: string) => (await readWholeSession({ sessionId })).messages.some((message) => message.content.includes(needle));

describe('one limit for a message (issue 72 §3)', () => {
  it('the rule itself: the limit passes, one more character or a NUL does not', () => {
    expect(messageRefusal('x'.repeat(MESSAGE_MAX_CHARS))).toBeNull();
    expect(messageRefusal(LONG)).toMatch(new RegExp(`^${TOO_LONG}`));
    expect(messageRefusal('a\u0000b')).toBe('a message must not contain NUL characters');
  });

  it('the page: 400 with the rule’s words, nothing stored', async () => {
    const session = await getOrchestrator().createSession({ persona: 'iris' });
    const post = (text: string) => messagesRoute.POST(new Request(`http://x/api/sessions/${session.id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) }), { params: Promise.resolve({ id: session.id }) });
    const refused = await post(LONG);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain(TOO_LONG);
    expect(await stored(session.id, 'xxxxxxxxxx')).toBe(false);
    expect((await post('x'.repeat(MESSAGE_MAX_CHARS))).status).toBe(202);
  });

  it('the OpenAI door: 400 invalid_request_error with the same words; a NUL too', async () => {
    const client = new OpenAI({ apiKey: secret, baseURL: `${door.base}/v1`, maxRetries: 0 });
    for (const [content, words] of [
      [LONG, TOO_LONG],
      ['before\u0000after', 'must not contain NUL'],
    ] as const) {
      const error = await client.chat.completions.create({ model: 'persona/iris', messages: [{ role: 'user', content }] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(words);
    }
  });

  it('the ACP and MCP doors parse a message with the same schema', () => {
    const parsed = agentMessageSchema.safeParse({ text: LONG });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(TOO_LONG);
    expect(agentMessageSchema.safeParse({ text: 'a\u0000b' }).success).toBe(false);
    expect(agentMessageSchema.safeParse({ text: 'x'.repeat(MESSAGE_MAX_CHARS) }).success).toBe(true);
  });

  it('a chat: told it was not sent, instead of a message cut at 16,000 characters', async () => {
    const orchestrator = getOrchestrator();
    const session = await orchestrator.createSession({ persona: 'iris' });
    const channelId = randomUUID();
    const channel = await saveChannel({ id: channelId, kind: 'telegram', name: 'phone', enabled: false, config: { token: '1:x', api_root: 'http://127.0.0.1:1', callback_secret: 's' } });
    const person = await personForSender({ sender: 'telegram:55', name: 'Ana', role: 'trusted' });
    await saveBinding({ id: randomUUID(), channelId, sender: 'telegram:55', senderName: '@ana', address: '55', sessionId: session.id, persona: null, push: 'all', quietHours: null, personId: person.id });
    await handleMessage({ channel, host: channelHost(orchestrator), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() }, { sender: 'telegram:55', senderName: '@ana', address: '55', text: LONG });
    const [answer] = await dueOutbox(channelId, new Date(Date.now() + 1_000));
    expect(answer!.payload.text).toMatch(new RegExp(`^Not sent: ${TOO_LONG}`));
    expect(await stored(session.id, 'xxxxxxxxxx')).toBe(false);
  });
});
