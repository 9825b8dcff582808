// `npm run acp` (issue 46 §4) driven by the ACP SDK's client side over its stdio, against the app's
// doors on loopback: a session opens a session of the key's persona, a prompt streams its answer as
// message chunks and its private thoughts as thought chunks, a card becomes a permission request
// approved from the client (the command runs in the sandbox), and a cancel ends the turn.
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type ClientConnection } from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOrchestrator } from '@/lib/orchestrator/orchestrator';
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
