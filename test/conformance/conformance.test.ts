// The official MCP conformance suite (@modelcontextprotocol/conformance, issue 30 §2), on the
// Node 22 it needs (the `node` package in test/conformance/runner, installed here with npm ci on
// first use; the app's own Node is unchanged). Its client scenarios — the auth suite included —
// drive our client (client.ts: McpPool, McpConnection, McpAuth, the real store); its server
// scenarios drive the app's MCP endpoint for the Claude Code CLI (/mcp/agentcsd) through a
// loopback proxy that adds a live run token, as the CLI sends it. Known failures are in
// baseline.yml, each with its reason; anything else failing — or a baseline entry that now
// passes — fails this test.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AgentMcpEndpoint, MCP_PATH } from '@/lib/agent/agent-mcp-endpoint';
import { createMindToolbox } from '@/lib/agent/mind-toolbox';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { ApprovalBroker } from '@/lib/tools/approval-broker';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { conformance, conformanceDir, ensureRunner, node22, summary } from './suite';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
const here = conformanceDir;
const baseline = path.join(here, 'baseline.yml');

beforeAll(() => {
  ensureRunner();
  expect(execFileSync(node22, ['--version']).toString()).toMatch(/^v22\./);
}, 320_000);

describe('the official MCP conformance suite', () => {
  // Every client scenario the suite lists, one at a time: in parallel, the timing checks (sse-retry
  // waits to the millisecond) measure the machine's load rather than the client.
  test('client scenarios, the auth suite included, against our client', async () => {
    const listed = await conformance(['list']);
    const scenarios = [...listed.output.split('Client scenarios')[1]!.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
    expect(scenarios).toContain('auth/metadata-default');
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
    const failed: string[] = [];
    for (const scenario of scenarios) {
      const result = await conformance(['client', '--command', path.join(here, 'client.sh'), '--scenario', scenario, '--timeout', '60000', '--expected-failures', baseline]);
      if (result.code !== 0) failed.push(`${scenario}:\n${summary(result.output) || result.output.slice(-2_000)}`);
    }
    expect(failed, failed.join('\n\n')).toEqual([]);
  }, 900_000);

  describe('server scenarios against the endpoint the Claude Code CLI uses', () => {
    const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'm', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };
    let orchestrator: Orchestrator;
    let endpoint: AgentMcpEndpoint;
    const servers: http.Server[] = [];
    let proxyUrl = '';

    beforeAll(async () => {
      // The app's own door to the endpoint (loopback only, no browsers, our Host only), with the
      // Host the suite sent: the proxy passes it through, so DNS-rebinding checks reach the guard.
      const app = http.createServer((request, response) => {
        if (request.url?.startsWith(MCP_PATH)) endpoint.handleGuarded(request, response, guard);
        else response.writeHead(404).end();
      });
      const guard = { port: 0, extraHosts: [] as string[] };
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      endpoint = new AgentMcpEndpoint(`http://127.0.0.1:${(app.address() as AddressInfo).port}${MCP_PATH}`);
      const broker = new ApprovalBroker();
      orchestrator = new Orchestrator({ approvals: broker, createBackend: () => new ScriptedBackend([], { text: subconsciousReply(), holdAfterChunks: 0 }) });
      await orchestrator.start();
      const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
      const { token } = endpoint.bind({
        sessionId: session.id,
        toolbox: (await createMindToolbox({ session, bus: orchestrator.bus, broker }))!,
        turn: { turnId: crypto.randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'conformance' },
        signal: new AbortController().signal,
        stopKind: () => 'user',
      });
      // The CLI sends its run token as a bearer header; the suite has no option for one.
      const target = new URL(endpoint.url);
      const proxy = http.createServer((request, response) => {
        const upstream = http.request({ host: target.hostname, port: target.port, path: request.url, method: request.method, headers: { ...request.headers, authorization: `Bearer ${token}` } }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        });
        upstream.on('error', () => response.writeHead(502).end());
        request.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      servers.push(app, proxy);
      guard.port = (proxy.address() as AddressInfo).port; // the Host the suite writes is the proxy's
      proxyUrl = `http://127.0.0.1:${guard.port}${MCP_PATH}`;
    });
    afterAll(async () => {
      await orchestrator.stop();
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    test('the active suite', async () => {
      const result = await conformance(['server', '--url', proxyUrl, '--expected-failures', baseline]);
      expect(result.code, summary(result.output) || result.output.slice(-3_000)).toBe(0);
      expect(result.output).toMatch(/server-initialize/);
    }, 300_000);
  });
});
