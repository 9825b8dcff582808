// The official MCP conformance suite's server scenarios against the MCP door (/mcp, issue 46 §3):
// what an outside client meets. Known failures and their reasons: baseline-door.yml.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as keysRoute from '@/app/api/keys/route';
import { McpDoor, MCP_DOOR_PATH } from '@/lib/http/mcp-door';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { conformance, conformanceDir, ensureRunner, summary } from './suite';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
const baseline = path.join(conformanceDir, 'baseline-door.yml');

describe('the MCP door against the official conformance suite', () => {
  let orchestrator: Orchestrator;
  const servers: http.Server[] = [];
  let url = '';

  beforeAll(async () => {
    ensureRunner();
    orchestrator = new Orchestrator({ createBackend: () => new ScriptedBackend([], { text: subconsciousReply(), holdAfterChunks: 0 }) });
    await orchestrator.start();
    const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'conformance', personas: ['tester'] }) }), {});
    const secret = ((await made.json()) as { key: { secret: string } }).key.secret;
    const guard = { port: 0, extraHosts: [] as string[] };
    const app = http.createServer();
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const door = new McpDoor(orchestrator, `http://127.0.0.1:${(app.address() as AddressInfo).port}`);
    app.on('request', (request, response) => (request.url?.startsWith(MCP_DOOR_PATH) ? door.handleGuarded(request, response, guard) : response.writeHead(404).end()));
    // The suite has no option for a bearer header: a proxy adds the key, and passes the suite's Host and Origin through.
    const proxy = http.createServer((request, response) => {
      const upstream = http.request({ host: '127.0.0.1', port: (app.address() as AddressInfo).port, path: request.url, method: request.method, headers: { ...request.headers, authorization: `Bearer ${secret}` } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', () => response.writeHead(502).end());
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    servers.push(app, proxy);
    guard.port = (proxy.address() as AddressInfo).port;
    url = `http://127.0.0.1:${guard.port}${MCP_DOOR_PATH}`;
  }, 320_000);
  afterAll(async () => {
    await orchestrator.stop();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('the active suite', async () => {
    const result = await conformance(['server', '--url', url, '--expected-failures', baseline]);
    expect(result.code, summary(result.output) || result.output.slice(-3_000)).toBe(0);
    expect(result.output).toMatch(/server-initialize/);
  }, 300_000);
});
