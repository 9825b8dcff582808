// `npm run acp` (issue 46 §4) driven by the ACP SDK's client side over its stdio, against the app's
// doors on loopback: a session opens a session of the key's persona, a prompt streams its answer as
// message chunks and its private thoughts as thought chunks, a card becomes a permission request
// approved from the client (the command runs in the sandbox), and a cancel ends the turn.
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type ClientConnection } from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keysRoute from '@/app/api/keys/route';
import { getOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { newKey, startDoorServer, startMindAndDoors } from './door-server';

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n' } });
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;
let agentProcess: ChildProcess;
let connection: ClientConnection;
const updates: { sessionId: string; update: Record<string, unknown> }[] = [];
const permissions: { toolCall: { toolCallId: string; title?: string | null } }[] = [];
let answerPermission: (id: string) => Promise<{ outcome: { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' } }> = async () => ({ outcome: { outcome: 'selected', optionId: 'approve' } });

beforeAll(async () => {
  ({ model, door } = await startMindAndDoors());
  const secret = await newKey('zed', ['iris']);
  agentProcess = spawn('npm', ['run', '--silent', 'acp'], { env: { ...process.env, AGENTCSD_URL: door.base, AGENTCSD_KEY: secret }, stdio: ['pipe', 'pipe', 'inherit'] });
  const app = client({ name: 'acp-test' })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params as never);
      return answerPermission(params.toolCall.toolCallId);
    })
    .onNotification(methods.client.session.update, ({ params }) => void updates.push(params as never));
  connection = app.connect(ndJsonStream(Writable.toWeb(agentProcess.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(agentProcess.stdout!) as ReadableStream<Uint8Array>));
  const init = await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
}, 60_000);

afterAll(async () => {
  connection?.close();
  agentProcess?.kill();
  await door?.close();
  await stopOrchestrator();
  await model?.close();
});

const textOf = (sessionId: string, kind: string) =>
  updates
    .filter((entry) => entry.sessionId === sessionId && entry.update.sessionUpdate === kind)
    .map((entry) => (entry.update.content as { text: string }).text)
    .join('');

describe('npm run acp', () => {
  it('opens a session of the persona; a prompt streams the answer and the thoughts', async () => {
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
    const session = await (await getDb()).session.findUniqueOrThrow({ where: { id: sessionId }, include: { people: true } });
    expect(session.personaName).toBe('iris');
    expect(session.people.map((person) => person.personId)).toEqual(['owner']);
    const done = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Hello over ACP' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(textOf(sessionId, 'agent_message_chunk')).toBe('You said: Hello over ACP');
    expect(textOf(sessionId, 'agent_thought_chunk')).toBe('Private note: they said 14 characters.');
  }, 60_000);

  it('a card is a permission request; approved from the client, the command runs and the tool calls are reported', async () => {
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
    const done = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Please create a file and run a command [[tools]]' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(permissions.map((entry) => entry.toolCall.title).sort()).toEqual(['bash', 'python']);
    const calls = updates.filter((entry) => entry.sessionId === sessionId && entry.update.sessionUpdate === 'tool_call').map((entry) => entry.update.title);
    expect(calls).toEqual(expect.arrayContaining(['write_file', 'bash', 'python']));
    const finished = updates.filter((entry) => entry.sessionId === sessionId && entry.update.sessionUpdate === 'tool_call_update' && entry.update.status === 'completed');
    expect(finished.length).toBeGreaterThanOrEqual(2);
    expect(textOf(sessionId, 'agent_message_chunk')).toContain('Here is what the tools said:');
  }, 90_000);

  it('a cancel ends the turn waiting on a card', async () => {
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
    let asked: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    answerPermission = () => {
      asked();
      return new Promise(() => undefined); // the person never answers in the editor
    };
    const turn = connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Please create a file and run a command [[tools]]' }] });
    await waiting;
    await connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
  }, 90_000);
});

describe('the agent door refuses', () => {
  it('no key, a wrong key, a persona or session not the key’s, bad bodies, a guest’s decision', async () => {
    const secret = await newKey('corpus', ['iris']);
    const post = async (path: string, body: unknown, key: string | null = secret, type = 'application/json') => {
      const response = await fetch(`${door.base}${path}`, { method: 'POST', headers: { 'content-type': type, ...(key && { authorization: `Bearer ${key}` }) }, body: typeof body === 'string' ? body : JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as { error?: { type: string; code: string | null } } };
    };
    expect((await post('/v1/agentcsd/sessions', { persona: 'iris' }, null)).status).toBe(401);
    expect((await post('/v1/agentcsd/sessions', { persona: 'iris' }, `acsd_0123456789abcdef_${'x'.repeat(43)}`)).status).toBe(401);
    expect(await post('/v1/agentcsd/sessions', { persona: 'nobody' })).toMatchObject({ status: 404, body: { error: { code: 'persona_not_found' } } });
    expect((await post('/v1/agentcsd/sessions', { persona: 'iris', extra: true })).status).toBe(400);
    expect((await post('/v1/agentcsd/sessions', '{')).status).toBe(400);
    expect((await post('/v1/agentcsd/sessions', 'persona=iris', secret, 'text/plain')).status).toBe(415);
    const { body } = await post('/v1/agentcsd/sessions', { persona: 'iris' });
    const sessionId = (body as unknown as { session_id: string }).session_id;
    expect((await post(`/v1/agentcsd/sessions/${sessionId}/messages`, { text: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(413);
    expect((await post('/v1/agentcsd/sessions/00000000-0000-4000-8000-000000000000/messages', { text: 'hi' })).status).toBe(404);
    expect((await post('/v1/agentcsd/sessions/..%2F..%2Fetc/stop', {})).status).toBe(404);
    expect((await post('/v1/agentcsd/tool-calls/00000000-0000-4000-8000-000000000000/decision', { decision: 'approve' })).status).toBe(404);
    expect((await post('/v1/agentcsd/tool-calls/00000000-0000-4000-8000-000000000000/decision', { decision: 'maybe' })).status).toBe(400);
    // A guest's key: its session's card is the owner's to decide.
    await (await getDb()).person.create({ data: { id: 'guest-1', name: 'Gus', role: 'guest' } });
    const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'gus', personas: ['iris'], person_id: 'guest-1' }) }), {});
    const guestKey = ((await made.json()) as { key: { secret: string } }).key.secret;
    // A card of the owner's (the [[tools]] turn above left some): a guest's key may not even see its session
    // (its own session's cards it may see, and the rights authority refuses them: test/people/rights-conformance.test.ts).
    const card = await (await getDb()).toolCall.findFirstOrThrow({ where: { name: 'bash' } });
    expect(await post(`/v1/agentcsd/tool-calls/${card.id}/decision`, { decision: 'approve' }, guestKey)).toMatchObject({ status: 404, body: { error: { code: 'session_not_found' } } });
    const ownerOfOther = await newKey('other-persona', ['iris']);
    expect((await post(`/v1/agentcsd/tool-calls/${card.id}/decision`, { decision: 'deny' }, ownerOfOther)).status).toBe(409); // the owner may decide it: already decided
  }, 60_000);
});
