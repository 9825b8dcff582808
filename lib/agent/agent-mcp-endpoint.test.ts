// The app's MCP endpoint with the official MCP client over real loopback HTTP: a token per run,
// the permission tool answering in the CLI's exact shape, a call run once after its approval,
// and nothing for a request without a live token.
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { ApprovalBroker } from '@/lib/tools/approval-broker';
import { EventRecorder } from '@/test/support/event-recorder';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { AgentMcpEndpoint, MCP_PATH, cliToolName } from './agent-mcp-endpoint';
import { createMindToolbox } from './mind-toolbox';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'm', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };

let server: http.Server;
let endpoint: AgentMcpEndpoint;
let orchestrator: Orchestrator;
let events: EventRecorder;
const broker = new ApprovalBroker();

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  server = http.createServer((request, response) => {
    if (request.url?.startsWith(MCP_PATH)) void endpoint.handle(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = new AgentMcpEndpoint(`http://127.0.0.1:${(server.address() as AddressInfo).port}${MCP_PATH}`);
  orchestrator = new Orchestrator({ approvals: broker, createBackend: () => new ScriptedBackend([], { text: subconsciousReply(), holdAfterChunks: 0 }) });
  events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
});
afterAll(async () => {
  events.close();
  await orchestrator.stop();
  server.closeAllConnections(); // keep-alive connections of the clients
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function bound() {
  const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
  const toolbox = (await createMindToolbox({ session, bus: orchestrator.bus, broker }))!;
  const controller = new AbortController();
  const binding = endpoint.bind({
    sessionId: session.id,
    toolbox,
    turn: { turnId: crypto.randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p' },
    signal: controller.signal,
    stopKind: () => 'user',
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${binding.token}` } } }));
  return { session, client, binding, controller };
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? '');

describe('the MCP endpoint the CLI uses', () => {
  it('lists the session’s tools and the permission tool', async () => {
    const { client, binding } = await bound();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'edit_file', 'list_files', 'grep', 'view_image', 'show_file', 'bash', 'python', 'recall', 'remember', 'journal', 'forget_memory', 'schedule', 'approve']);
    await client.close();
    binding.release();
  });

  it('a file tool is allowed at once and runs; its row says so', async () => {
    const { session, client, binding } = await bound();
    const answer = JSON.parse(textOf(await client.callTool({ name: 'approve', arguments: { tool_name: cliToolName('write_file'), input: { path: 'a.txt', content: 'hi' }, tool_use_id: 'toolu_1' } })));
    expect(answer).toEqual({ behavior: 'allow', updatedInput: { path: 'a.txt', content: 'hi' } });
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } });
    expect(textOf(result)).toMatch(/Created a.txt/);
    expect(fs.readFileSync(path.join(dirs.dataDir, 'workspaces', session.id, 'a.txt'), 'utf8')).toBe('hi');
    expect((await listToolCalls({ sessionId: session.id })).map((call) => [call.name, call.status, call.providerCallId])).toEqual([['write_file', 'succeeded', 'toolu_1']]);
    await client.close();
    binding.release();
  });

  it('bash waits for the person; an edited approval reaches the CLI as updatedInput and runs once', async () => {
    const { session, client, binding } = await bound();
    const asking = client.callTool({ name: 'approve', arguments: { tool_name: cliToolName('bash'), input: { command: 'echo one' }, tool_use_id: 'toolu_2' } });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.status === 'awaiting_approval' });
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', edited_args: { command: 'echo edited' } }, await ownerActor());
    const answer = JSON.parse(textOf(await asking));
    expect(answer).toEqual({ behavior: 'allow', updatedInput: { command: 'echo edited' } });
    const run = await client.callTool({ name: 'bash', arguments: { command: 'echo edited' } });
    expect(textOf(run)).toContain('edited');
    // The same command again is a new call: it needs a new decision.
    const again = client.callTool({ name: 'bash', arguments: { command: 'echo edited' } });
    const second = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.status === 'awaiting_approval' && event.call.id !== card.call.id });
    await orchestrator.decideToolCall({ id: second.call.id, decision: 'deny', reason: 'once is enough' }, await ownerActor());
    expect(await again).toMatchObject({ isError: true, content: [{ text: 'Denied by the user: once is enough' }] });
    expect((await listToolCalls({ sessionId: session.id })).map((call) => call.status)).toEqual(['succeeded', 'denied']);
    await client.close();
    binding.release();
  });

  it('a denial answers in the CLI’s deny shape with the reason', async () => {
    const { session, client, binding } = await bound();
    const asking = client.callTool({ name: 'approve', arguments: { tool_name: cliToolName('python'), input: { code: 'print(1)' }, tool_use_id: 'toolu_3' } });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.status === 'awaiting_approval' });
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'deny', reason: 'not now' }, await ownerActor());
    expect(JSON.parse(textOf(await asking))).toEqual({ behavior: 'deny', message: 'Denied by the user: not now' });
    // Asking permission for something that is not ours is refused without a card.
    const foreign = JSON.parse(textOf(await client.callTool({ name: 'approve', arguments: { tool_name: 'Bash', input: { command: 'id' } } })));
    expect(foreign.behavior).toBe('deny');
    await client.close();
    binding.release();
  });

  it('no live token, no tools: 401 for a missing, wrong or released token', async () => {
    const { binding } = await bound();
    const post = (authorization?: string) =>
      fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post()).status).toBe(401);
    expect((await post(`Bearer ${'x'.repeat(43)}`)).status).toBe(401);
    binding.release();
    expect((await post(`Bearer ${binding.token}`)).status).toBe(401);
    expect(endpoint.activeBindings).toBeGreaterThanOrEqual(0);
  });
});
