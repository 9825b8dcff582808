// The browser on the Claude Code CLI backend (issue 45 §6): the real `claude` binary against the
// fake Anthropic server reaches browser_open through the app's MCP endpoint, as it reaches every
// tool; the page comes back to it as untrusted data of its host.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { getDb } from '@/lib/store/db';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import { cliToolName } from '@/lib/agent/agent-mcp-endpoint';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import type { FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { cliPath, startCliHarness, type CliHarness } from '@/test/support/cli-harness';
import type { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { reader: '# Reader\n' } });

/** Opens the URL the prompt names with browser_open, then quotes the page's heading. */
function cliScript(request: FakeRequest): FakeReply {
  const body = request.body as { messages?: { role: string; content: unknown }[]; tools?: { name: string }[] };
  const wire = JSON.stringify(body.messages ?? []);
  if (wire.includes('"tool_result"')) return { text: `<ID_loud>The page says: ${/heading \\"([^\\]+)\\"/.exec(wire)?.[1] ?? 'nothing'}</ID_loud>` };
  const url = /\[\[cli-browse (\S+?)\]\]/.exec(wire)?.[1];
  if (url && (body.tools ?? []).some((tool) => tool.name === cliToolName('browser_open'))) return { text: '', toolCalls: [{ name: cliToolName('browser_open'), input: { url } }] };
  return { text: `<ID_loud>No browser offered.</ID_loud>` };
}

let site: http.Server;
let origin = '';
let harness: CliHarness;
let orchestrator: Orchestrator;
let events: EventRecorder;
let fake: FakeAnthropicServer;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  site = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Docs</title><h1>Welcome to the docs</h1>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  harness = await startCliHarness(cliScript);
  ({ orchestrator, events, fake } = harness);
  const graph = defaultGraph('reader');
  graph.nodes.push({ id: 'web', type: 'tool.browser', config: { allowed_hosts: [new URL(origin).host] } });
  graph.edges.push({ id: 'e_web', source: 'core', target: 'web' });
  const saved = await capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body: JSON.stringify({ graph }), headers: { 'content-type': 'application/json' } }), { params: Promise.resolve({ name: 'reader' }) });
  expect(saved.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await harness?.close();
  site?.close();
});

const cliLayer: LayerModelConfig = { backend: 'claude_code_cli', model: 'claude-haiku-5-5', max_tokens: 512, cli_path: cliPath };
const sLayer: LayerModelConfig = { backend: 'openai_compatible', model: 's', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };

describe('the browser on the Claude Code CLI backend (the real binary)', () => {
  it('browser_open runs through the app’s MCP endpoint; the page comes back as untrusted data of its host', async () => {
    const session = await orchestrator.createSession({ persona: 'reader', models: { c_model: cliLayer, s_model: sLayer } });
    await orchestrator.sendUserMessage(session.id, { text: `Read the docs [[cli-browse ${origin}/]]` });
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 90_000 });
    expect(end.outcome, end.error).toBe('complete');
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.map((call) => [call.name, call.status, call.resultSource])).toEqual([['browser_open', 'succeeded', `the web page(s) of ${new URL(origin).host}`]]);
    const wire = fake.requests.map((request) => JSON.stringify(request.body)).find((body) => body.includes('"tool_result"'));
    expect(wire).toContain('untrusted_data source=\\"the web page(s) of');
    const loud = await (await getDb()).message.findFirst({ where: { sessionId: session.id, tag: 'ID_loud' } });
    expect(loud?.content).toBe('The page says: Welcome to the docs');
  }, 120_000);
});
