// The OpenAI-compatible door (issue 46 §1–2), with the official `openai` SDK as the client over real
// HTTP: the route handlers behind the app's own request guard on loopback, the real orchestrator
// and store, the mind on the fake OpenAI-compatible model. Streaming and whole answers, the model
// list, a refused key, a revoked key, a persona the key may not use, a resent conversation
// delivered once, a card that waits and says where to decide it, the security corpus of the routes.
import http from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as keysRoute from '@/app/api/keys/route';
import * as keyRoute from '@/app/api/keys/[id]/route';
import * as unknownDoorPath from '@/app/v1/[...rest]/route';
import { getOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startMindAndDoors, type startDoorServer } from './door-server';

const OWNER = { person: { id: 'owner', name: 'Owner', role: 'owner' as const, limits: null, rights: null, createdAt: new Date(0), identities: [] }, via: 'page' as const };

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n', hidden: '# Hidden\n' } });
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;
let base = '';
let secret = '';
let keyId = '';

beforeAll(async () => {
  ({ model, door } = await startMindAndDoors());
  base = door.base;
  const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'laptop', personas: ['iris'] }) }), {});
  expect(made.status).toBe(201);
  const body = (await made.json()) as { key: { id: string; secret: string; hint: string } };
  secret = body.key.secret;
  keyId = body.key.id;
  expect(secret).toMatch(/^acsd_[0-9a-f]{16}_[\w-]{43}$/);
  expect(secret.endsWith(body.key.hint)).toBe(true);
}, 60_000);

afterAll(async () => {
  await door?.close();
  await stopOrchestrator();
  await model?.close();
});

const client = (apiKey = secret) => new OpenAI({ apiKey, baseURL: `${base}/v1`, maxRetries: 0 });

describe('the OpenAI-compatible door', () => {
  it('lists one model per persona the key may use; the key is never stored, only listed by its hint', async () => {
    const models = await client().models.list();
    expect(models.data.map((entry) => entry.id)).toEqual(['persona/iris']);
    const listed = (await (await keysRoute.GET(new Request('http://x/api/keys'), {})).json()) as { keys: Record<string, unknown>[] };
    expect(listed.keys).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(22)); // acsd_ + 16 + _ , then the secret
    expect(listed.keys[0]).toMatchObject({ id: keyId, name: 'laptop', personas: ['iris'], revoked_at: null });
  });

  it('answers a chat completion with the mind’s reply, and streams one; usage is filled', async () => {
    const whole = await client().chat.completions.create({ model: 'persona/iris', messages: [{ role: 'user', content: 'Hello from a script' }] });
    expect(whole.choices[0]!.message.content).toBe('You said: Hello from a script');
    expect(whole.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(whole.usage!.completion_tokens).toBeGreaterThan(0);

    const stream = await client().chat.completions.create({ model: 'persona/iris', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hello from a script' }, { role: 'assistant', content: 'You said: Hello from a script' }, { role: 'user', content: 'And now streamed' }] });
    let text = '';
    let usage = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage += chunk.usage?.total_tokens ?? 0;
    }
    expect(text).toBe('You said: And now streamed');
    expect(usage).toBeGreaterThan(0);
    // One session for the key, holding each message once: the resent first message was not delivered again.
    const sessions = await (await getDb()).apiKeySession.findMany({ where: { keyId } });
    expect(sessions).toHaveLength(1);
    const said = await (await getDb()).message.findMany({ where: { sessionId: sessions[0]!.sessionId, tag: 'ED_user' }, orderBy: { id: 'asc' }, select: { content: true } });
    expect(said.map((row) => row.content)).toEqual(['Hello from a script', 'And now streamed']);
  }, 60_000);

  it('a retried request delivers nothing again and gets the same reply', async () => {
    const messages = [{ role: 'user' as const, content: 'Hello from a script' }, { role: 'assistant' as const, content: 'You said: Hello from a script' }, { role: 'user' as const, content: 'And now streamed' }];
    const again = await client().chat.completions.create({ model: 'persona/iris', messages });
    expect(again.choices[0]!.message.content).toBe('You said: And now streamed');
    const sessionId = (await (await getDb()).apiKeySession.findFirstOrThrow({ where: { keyId } })).sessionId;
    expect(await (await getDb()).message.count({ where: { sessionId, tag: 'ED_user' } })).toBe(2);
  }, 60_000);

  it('refuses in OpenAI’s shapes: no key, a wrong key, a persona the key may not use, a malformed body', async () => {
    await expect(client('acsd_0123456789abcdef_' + 'x'.repeat(43)).models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(client('not-a-key').chat.completions.create({ model: 'persona/iris', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(client().chat.completions.create({ model: 'persona/hidden', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    await expect(client().chat.completions.create({ model: 'persona/../../etc', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });
    await expect(client().chat.completions.create({ model: 'persona/iris', messages: [{ role: 'assistant', content: 'no user here' }] })).rejects.toMatchObject({ status: 400 });
    const raw = async (headers: Record<string, string>, body: string) => {
      const response = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      return { status: response.status, body: (await response.json()) as { error: { type: string; message: string } } };
    };
    const auth = { authorization: `Bearer ${secret}` };
    expect(await raw(auth, '{')).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error' } } });
    expect(await raw(auth, JSON.stringify({ model: 'persona/iris' }))).toMatchObject({ status: 400 });
    expect(await raw(auth, JSON.stringify({ model: 'persona/iris', messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }] }))).toMatchObject({ status: 413 });
    // Past the server bridge's own cap too: cut there, refused by the door in its words, the rest drained.
    expect(await raw(auth, JSON.stringify({ model: 'persona/iris', messages: [{ role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }] }))).toMatchObject({ status: 413, body: { error: { type: 'invalid_request_error' } } });
    expect(await raw({ ...auth, origin: 'http://evil.example' }, JSON.stringify({ model: 'persona/iris', messages: [{ role: 'user', content: 'x' }] }))).toMatchObject({ status: 403, body: { error: { code: 'forbidden_origin' } } }); // the doors' one Origin rule (red-team round 4)
    expect(await raw(auth, JSON.stringify({ model: 'persona/hidden', messages: [{ role: 'user', content: 'x' }] }))).toMatchObject({ status: 404 });
    // A /v1/ path no door serves: JSON in OpenAI's shape, not the page's HTML 404.
    const unknown = await unknownDoorPath.POST();
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found' } });
    const foreignHost = await new Promise<number>((resolve) => http.get(`${base}/v1/models`, { headers: { ...auth, host: 'evil.example' } }, (response) => resolve(response.statusCode ?? 0)));
    expect(foreignHost).toBe(421); // DNS rebinding: the door is still held to the Host rule
  }, 60_000);

  it('a card on the way ends the answer at once, saying where to decide it; a retry meanwhile waits for nothing and delivers nothing again', async () => {
    const messages = [{ role: 'user' as const, content: 'Please create a file and run a command [[tools]]' }];
    const cards: { id: string; sessionId: string; argsHash: string }[] = [];
    const unsubscribe = getOrchestrator().bus.subscribe((event) => {
      if (event.type === 'tool-call' && event.call.status === 'awaiting_approval' && !cards.some((card) => card.id === event.call.id)) cards.push({ id: event.call.id, sessionId: event.sessionId, argsHash: event.call.args_hash });
    });
    try {
      let text = '';
      // Nobody decides: before issue 58 this stream waited 120 s for a person.
      for await (const chunk of await client().chat.completions.create({ model: 'persona/iris', stream: true, messages })) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toMatch(/\[bash waits for a person's approval: http:\/\/127\.0\.0\.1:\d+\/sessions\/[0-9a-f-]{36}\. The rest of this answer comes in the session once it is decided\.\]/);
      expect(text).not.toContain('Here is what the tools said:');
      const again = await client().chat.completions.create({ model: 'persona/iris', messages });
      expect(again.choices[0]!.message.content).toMatch(/waits for a person's approval/);
      const sessionId = cards[0]!.sessionId;
      expect(await (await getDb()).message.count({ where: { sessionId, tag: 'ED_user', content: messages[0]!.content } })).toBe(1);
      // The key's next message does not wait on the card either: queued, answered in the session once it is decided.
      const next = await client().chat.completions.create({ model: 'persona/iris', messages: [...messages, { role: 'assistant', content: text }, { role: 'user', content: 'And another thing' }] });
      expect(next.choices[0]!.message.content).toMatch(/waits for a person's approval in this conversation: .*This message is answered there once it is decided/);
      expect(await (await getDb()).message.count({ where: { sessionId, tag: 'ED_user', content: 'And another thing' } })).toBe(1);
      // Decided later on the page: the rest of the turn comes in the session.
      for (const card of cards) await getOrchestrator().decideToolCall({ id: card.id, decision: 'deny', reason: 'not now', args_hash: card.argsHash, session_id: card.sessionId }, OWNER);
      await expect.poll(async () => (await (await getDb()).message.findFirst({ where: { sessionId, tag: 'ED_agent', content: { contains: 'Here is what the tools said:' } } })) !== null, { timeout: 30_000 }).toBe(true);
    } finally {
      unsubscribe();
    }
  }, 90_000);

  it('red-team round 4: a stream the client aborts stops listening — no listener fails on the events that follow', async () => {
    const errors = vi.spyOn(console, 'error');
    const aborter = new AbortController();
    const text = `Tell me a long story ${'and then more '.repeat(20)}`;
    const stream = await client().chat.completions.create({ model: 'persona/iris', stream: true, messages: [{ role: 'user', content: text }] }, { signal: aborter.signal });
    const ended = new Promise<void>((resolve) => {
      const unsubscribe = getOrchestrator().bus.subscribe((event) => {
        if (event.type === 'turn-end' && event.messages.some((message) => message.tag === 'ED_agent')) (unsubscribe(), resolve());
      });
    });
    try {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.role) aborter.abort();
    } catch {
      // the SDK may end or throw on its own abort: either way the client hung up
    }
    expect(aborter.signal.aborted).toBe(true);
    await ended;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const failures = errors.mock.calls.filter((call) => String(call[0]).includes('listener failed'));
    errors.mockRestore();
    expect(failures).toEqual([]);
  }, 60_000);

  it('parallel requests on one key each get a turn and a reply of their own (issue 58 §7), streamed or whole', async () => {
    const texts = ['Parallel one', 'Parallel two', 'Parallel three', 'Parallel four', 'Parallel five', 'Parallel six'];
    const answers = await Promise.all(
      texts.map(async (text, index) => {
        const messages = [{ role: 'user' as const, content: text }];
        if (index % 2 === 0) return (await client().chat.completions.create({ model: 'persona/iris', messages })).choices[0]!.message.content;
        let said = '';
        for await (const part of await client().chat.completions.create({ model: 'persona/iris', messages, stream: true })) said += part.choices[0]?.delta?.content ?? '';
        return said;
      }),
    );
    expect(answers).toEqual(texts.map((text) => `You said: ${text}`));
    // In the session, each message answered by a turn of its own.
    const sessionId = (await (await getDb()).apiKeySession.findFirstOrThrow({ where: { keyId } })).sessionId;
    const replies = await (await getDb()).message.findMany({ where: { sessionId, tag: 'ED_agent', content: { startsWith: 'You said: Parallel' } }, select: { turnId: true } });
    expect(replies).toHaveLength(texts.length);
    expect(new Set(replies.map((row) => row.turnId)).size).toBe(texts.length);
  }, 90_000);

  it('a revoked key is refused at once', async () => {
    expect((await keyRoute.DELETE(new Request('http://x', { method: 'DELETE' }), { params: Promise.resolve({ id: keyId }) })).status).toBe(204);
    await expect(client().models.list()).rejects.toMatchObject({ status: 401 });
    expect((await keyRoute.DELETE(new Request('http://x', { method: 'DELETE' }), { params: Promise.resolve({ id: keyId }) })).status).toBe(404);
  });
});

describe('the door with the AI SDK’s OpenAI-compatible provider as a second client', () => {
  it('generates and streams through persona/iris', async () => {
    const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ai-sdk', personas: ['iris'] }) }), {});
    const key = ((await made.json()) as { key: { secret: string } }).key.secret;
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    const { generateText, streamText } = await import('ai');
    const provider = createOpenAICompatible({ name: 'agentcsd', baseURL: `${base}/v1`, apiKey: key, includeUsage: true });
    const generated = await generateText({ model: provider('persona/iris'), prompt: 'Hi from the AI SDK', maxRetries: 0 });
    expect(generated.text).toBe('You said: Hi from the AI SDK');
    expect(generated.usage.inputTokens).toBeGreaterThan(0);
    const streamed = streamText({ model: provider('persona/iris'), messages: [{ role: 'user', content: 'Hi from the AI SDK' }, { role: 'assistant', content: generated.text }, { role: 'user', content: 'Streaming now' }], maxRetries: 0 });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe('You said: Streaming now');
  }, 60_000);
});
