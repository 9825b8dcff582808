// tool.http against a real loopback HTTP server: only listed hosts (and ports) are reached, the
// method list and approval hold, redirects are reported and not followed, the size cap and time
// limit cut a server off; and in a session whose graph connects it, the model's http_get runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { httpTools, refuseUrl } from '@/lib/tools/http-tool';
import type { HttpConfig } from '@/lib/tools/tool-node-configs';
import type { Tool, ToolOutcome } from '@/lib/tools/tool-types';
import { EventRecorder } from '@/test/support/event-recorder';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { webby: '# Webby\n' } });

let server: http.Server;
let port: number;
const hits: string[] = [];
beforeAll(async () => {
  server = http.createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    if (request.url === '/hello') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('hello from loopback');
    if (request.url === '/moved') return void response.writeHead(302, { location: 'http://elsewhere.invalid/x' }).end();
    if (request.url === '/big') return void response.writeHead(200).end('x'.repeat(100_000));
    if (request.url === '/slow') return; // never answers
    if (request.url === '/items' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => response.writeHead(201).end(`created ${body}`));
      return;
    }
    response.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const run = (tool: Tool, args: unknown): Promise<ToolOutcome> => tool.run(tool.args.parse(args), { sessionId: 's', workspaceDir: '/tmp', signal: new AbortController().signal });
const byName = (config: HttpConfig) => Object.fromEntries(httpTools(config).map((tool) => [tool.definition.name, tool]));

describe('tool.http', () => {
  it('reaches only listed hosts and ports; GET needs no approval, anything else does', async () => {
    const config: HttpConfig = { allowed_hosts: [`127.0.0.1:${port}`], timeout_ms: 2_000 };
    const tools = byName(config);
    expect(tools.http_get!.approval).toBe('never');
    expect(tools.http_request!.approval).toBe('required');
    const ok = await run(tools.http_get!, { url: `http://127.0.0.1:${port}/hello` });
    expect(ok).toMatchObject({ isError: false });
    expect(ok.content).toMatch(/^HTTP 200 OK\ncontent-type: text\/plain\n\nhello from loopback$/);
    const before = hits.length;
    for (const url of [`http://localhost:${port}/hello`, 'http://127.0.0.1/hello', `http://127.0.0.1:${port + 1}/hello`, `file:///etc/passwd`, `http://user:pw@127.0.0.1:${port}/hello`, 'not a url']) {
      const refused = await run(tools.http_get!, { url });
      expect(refused.isError).toBe(true);
      expect(refused.content).toMatch(/^Refused: /);
    }
    expect(hits.length).toBe(before); // nothing reached the server
    expect(refuseUrl(`http://127.0.0.1:${port}/x`, { url: `http://127.0.0.1:${port}/data` })).toBeNull(); // the seed's single url allows its host
    const created = await run(tools.http_request!, { url: `http://127.0.0.1:${port}/items`, method: 'POST', body: 'apple' });
    expect(created.content).toContain('HTTP 201');
    expect(created.content).toContain('created apple');
    // Only the node's methods exist for the model.
    const readOnly = byName({ ...config, methods: ['GET'] });
    expect(Object.keys(readOnly)).toEqual(['http_get']);
    expect(() => readOnly.http_get!.args.parse({ url: 'http://x/', method: 'DELETE' })).toThrow();
  });

  it('does not follow redirects, cuts a large answer at the cap, and gives up on a silent server', async () => {
    const tools = byName({ allowed_hosts: [`127.0.0.1:${port}`], max_bytes: 1_000, timeout_ms: 300 });
    const moved = await run(tools.http_get!, { url: `http://127.0.0.1:${port}/moved` });
    expect(moved.content).toContain('HTTP 302');
    expect(moved.content).toContain('location: http://elsewhere.invalid/x (redirects are not followed)');
    const big = await run(tools.http_get!, { url: `http://127.0.0.1:${port}/big` });
    expect(big.content).toContain('[the answer was cut at 1000 bytes');
    expect(big.content.endsWith('x'.repeat(1_000))).toBe(true);
    const slow = await run(tools.http_get!, { url: `http://127.0.0.1:${port}/slow` });
    expect(slow).toMatchObject({ isError: true, timedOut: true });
  });

  it("in a session whose graph connects it, the model gets the node's tools (GET only here) and its http_get runs", async () => {
    const graph = defaultGraph('webby');
    graph.nodes.push({ id: 'web', type: 'tool.http', config: { allowed_hosts: [`127.0.0.1:${port}`], methods: ['GET'] } });
    graph.edges.push({ id: 'e_web', source: 'core', target: 'web' });
    const saved = await capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body: JSON.stringify({ graph }), headers: { 'content-type': 'application/json' } }), { params: Promise.resolve({ name: 'webby' }) });
    expect(saved.status).toBe(200);

    const c = new ScriptedBackend(
      [{ text: '<ID_quiet>Fetching.</ID_quiet>', toolCalls: [{ id: 'call_web', name: 'http_get', input: { url: `http://127.0.0.1:${port}/hello` } }] }],
      { text: '<ID_loud>It says hello.</ID_loud><ID_quiet>ok</ID_quiet>' },
    );
    const s = new ScriptedBackend([], { text: subconsciousReply() });
    const orchestrator = new Orchestrator({ createBackend: (config: LayerModelConfig) => (config.model === 'c' ? c : s) });
    const events = new EventRecorder(orchestrator.bus);
    try {
      await orchestrator.start();
      const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 300, endpoint: 'http://127.0.0.1:9/v1' });
      const session = await orchestrator.createSession({ persona: 'webby', models: { c_model: layer('c'), s_model: layer('s') } });
      await orchestrator.sendUserMessage(session.id, { text: 'What does the page say?' });
      await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id });
      expect(c.calls[0]!.tools!.map((tool) => tool.name)).toContain('http_get');
      expect(c.calls[0]!.tools!.map((tool) => tool.name)).not.toContain('http_request');
      const db = await getDb();
      const [call] = await db.toolCall.findMany({ where: { sessionId: session.id } });
      expect(call).toMatchObject({ name: 'http_get', status: 'succeeded' });
      expect(call!.result).toContain('hello from loopback');
    } finally {
      await orchestrator.stop();
      events.close();
    }
  }, 20_000);
});
