// The app with the real `claude` binary as its Internal Dialog (the tools' CLI tests): the fake
// Anthropic server the CLI talks to, the app's MCP endpoint on loopback that it reaches the tools
// through, and an orchestrator whose CLI layers use them (other layers: a scripted Subconscious).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AgentMcpEndpoint, MCP_PATH } from '@/lib/agent/agent-mcp-endpoint';
import { ClaudeCodeCliBackend } from '@/lib/backends/claude-code-cli-backend';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import type { FakeScript } from '@/test/fakes/fake-server-core';
import { EventRecorder } from './event-recorder';
import { ScriptedBackend, subconsciousReply } from './scripted-backend';

export const cliPath = path.resolve('node_modules/.bin/claude');

export interface CliHarness {
  fake: FakeAnthropicServer;
  endpoint: AgentMcpEndpoint;
  orchestrator: Orchestrator;
  events: EventRecorder;
  /** A folder of its own for the run (CLI homes). */
  scratch: string;
  close(): Promise<void>;
}

export async function startCliHarness(script: FakeScript): Promise<CliHarness> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-cli-'));
  const fake = await startFakeAnthropicServer({ script });
  let endpoint: AgentMcpEndpoint | null = null;
  const mcpServer = http.createServer((request, response) => {
    if (endpoint && request.url?.startsWith(MCP_PATH)) void endpoint.handle(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => mcpServer.listen(0, '127.0.0.1', resolve));
  endpoint = new AgentMcpEndpoint(`http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}${MCP_PATH}`);
  const home = fs.mkdtempSync(path.join(scratch, 'home-'));
  const orchestrator = new Orchestrator({
    createBackend: (config) =>
      config.backend === 'claude_code_cli'
        ? new ClaudeCodeCliBackend({ cliPath, env: { HOME: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'dummy-key' } })
        : new ScriptedBackend([], { text: subconsciousReply(), holdAfterChunks: 0 }),
  });
  orchestrator.setToolServer(endpoint);
  const events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
  return {
    fake,
    endpoint,
    orchestrator,
    events,
    scratch,
    async close() {
      events.close();
      await orchestrator.stop();
      mcpServer.closeAllConnections();
      await new Promise<void>((resolve) => mcpServer.close(() => resolve()));
      await fake.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}
