// The MCP door (issue 46 §3) with the MCP SDK's own client over Streamable HTTP: every tool, the
// transcripts as resources, a refused key, a foreign Origin, another person's session — on both stores.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keysRoute from '@/app/api/keys/route';
import { McpDoor, MCP_DOOR_PATH } from '@/lib/http/mcp-door';
import { appendMemory } from '@/lib/memory/memory-store';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n' } });
let model: FakeOpenAIServer;
let server: http.Server;
let base = '';
let secret = '';

beforeAll(async () => {
  model = await startFakeOpenAIServer({ script: mindScript });
  await startOrchestrator();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  await writeSettings({ ...(await readSettings()), models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const door = new McpDoor(getOrchestrator(), base);
  const guard = { port: (server.address() as AddressInfo).port, extraHosts: [], accessToken: 'page-token-the-door-does-not-need-000000' };
  server.on('request', (request, response) => (request.url?.startsWith(MCP_DOOR_PATH) ? door.handleGuarded(request, response, guard) : response.writeHead(404).end()));
  const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'desktop', personas: ['iris'] }) }), {});
  secret = ((await made.json()) as { key: { secret: string } }).key.secret;
  await appendMemory({ personaName: 'iris', content: 'The user keeps bees on the roof', scope: 'long', untrustedSource: null });
}, 60_000);

afterAll(async () => {
  server?.close();
  await stopOrchestrator();
  await model?.close();
});

async function connect(headers: Record<string, string> = { authorization: `Bearer ${secret}` }): Promise<Client> {
  const client = new Client({ name: 'door-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${MCP_DOOR_PATH}`), { requestInit: { headers } }));
  return client;
}
const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? '');

describe('the MCP door', () => {
  it('offers the five tools; send_message waits for the reply and reports progress', async () => {
    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['list_sessions', 'recall', 'send_message', 'submit_task', 'task_status']);
    const progress: unknown[] = [];
    const sent = await client.callTool({ name: 'send_message', arguments: { persona: 'iris', text: 'Hello through MCP' } }, undefined, { onprogress: (update) => progress.push(update), timeout: 60_000 });
    expect(textOf(sent)).toBe('You said: Hello through MCP');
    expect((sent.structuredContent as { session_id: string }).session_id).toMatch(/^[0-9a-f-]{36}$/);
    await client.close();
  }, 60_000);

  it('lists its sessions, recalls, submits a task and follows it; transcripts are resources', async () => {
    const client = await connect();
    const listed = (await client.callTool({ name: 'list_sessions', arguments: {} })).structuredContent as { sessions: { id: string; persona: string }[] };
    expect(listed.sessions).toHaveLength(1);
    expect(listed.sessions[0]!.persona).toBe('iris');
    expect(textOf(await client.callTool({ name: 'recall', arguments: { persona: 'iris', query: 'bees roof' } }))).toContain('The user keeps bees on the roof');
    const task = (await client.callTool({ name: 'submit_task', arguments: { persona: 'iris', goal: 'Count to three' } })).structuredContent as { task_id: string };
    expect(textOf(await client.callTool({ name: 'task_status', arguments: { task_id: task.task_id } }))).toMatch(/"status": "(pending|running|completed|failed|blocked)"/);
    const resources = await client.listResources();
    expect(resources.resources.map((resource) => resource.uri)).toEqual([`agentcsd://sessions/${listed.sessions[0]!.id}/transcript`]);
    const transcript = await client.readResource({ uri: resources.resources[0]!.uri });
    expect((transcript.contents[0] as { text: string }).text).toContain('Hello through MCP');
    await client.close();
  }, 60_000);

  it('refuses: no key, a wrong key, a foreign Origin, a persona or session or task not the key’s', async () => {
    await expect(connect({})).rejects.toThrow(/401|nauthorized/);
    await expect(connect({ authorization: 'Bearer acsd_0123456789abcdef_' + 'x'.repeat(43) })).rejects.toThrow(/401|nauthorized/);
    await expect(connect({ authorization: `Bearer ${secret}`, origin: 'http://evil.example' })).rejects.toThrow(/403|Origin/);
    const client = await connect();
    const refused = await client.callTool({ name: 'send_message', arguments: { persona: 'hidden', text: 'x' } });
    expect(refused.isError).toBe(true);
    // Another person's conversation of the same persona: not the key's to name.
    await (await getDb()).person.create({ data: { id: 'bob', name: 'Bob', role: 'guest' } });
    const other = await getOrchestrator().createSession({ persona: 'iris', name: 'Bob’s own' }, { people: ['bob'] });
    const named = await client.callTool({ name: 'send_message', arguments: { persona: 'iris', text: 'x', session_id: other.id } });
    expect(named.isError).toBe(true);
    expect(textOf(named)).toMatch(/No session .* this key may use/);
    expect((await client.callTool({ name: 'task_status', arguments: { task_id: '00000000-0000-4000-8000-000000000000' } })).isError).toBe(true);
    // Not found, whether it does not exist or is Bob's: MCP's -32002, never an internal error (red-team round 4).
    for (const id of ['00000000-0000-4000-8000-000000000000', other.id]) {
      await expect(client.readResource({ uri: `agentcsd://sessions/${id}/transcript` })).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/Resource not found: no session/) });
    }
    await client.close();
  }, 60_000);
});
