// Tools on the Claude Code CLI backend, end to end with the real `claude` binary: it runs against
// the fake Anthropic server (extended with tool calls), reaches the app's tools through the app's
// own MCP endpoint with a per-run token, and asks the app's permission tool before each call —
// so a command still waits for a person's decision, and runs once when approved.
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliToolName, type AgentMcpEndpoint } from '@/lib/agent/agent-mcp-endpoint';
import { ClaudeCodeCliBackend, toolServerArgs } from '@/lib/backends/claude-code-cli-backend';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import type { FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import type { EventRecorder } from '@/test/support/event-recorder';
import { collectParts } from '@/test/support/collect';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { cliPath, startCliHarness, type CliHarness } from '@/test/support/cli-harness';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });

interface WireMessage {
  role: string;
  content: unknown;
}

/** The scripted model: asks for the tool the prompt names, then reports the tool's result. */
function cliScript(request: FakeRequest): FakeReply {
  const body = request.body as { messages?: WireMessage[]; tools?: { name: string }[] };
  const messages = body.messages ?? [];
  // The CLI ends its messages with a `system` one of its own: the user turn is the last user message.
  const last = messages.filter((message) => message.role === 'user').at(-1);
  const results = Array.isArray(last?.content) ? (last.content as { type?: string; content?: unknown }[]).filter((block) => block.type === 'tool_result') : [];
  if (results.length > 0) {
    const content = results[0]!.content;
    const images = Array.isArray(content) ? (content as { type?: string }[]).filter((block) => block.type === 'image').length : 0;
    if (images > 0) return { text: `<ID_loud>I was shown ${images} image in the tool result.</ID_loud>` };
    const text = typeof content === 'string' ? content : Array.isArray(content) ? (content as { text?: string }[]).map((block) => block.text ?? '').join('') : '';
    return { text: `<ID_loud>The tool said: ${text.replace(/\s+/g, ' ').trim().slice(0, 120)}</ID_loud>` };
  }
  // Only what the user said in this turn (a <memory> block may quote other sessions' markers).
  const prompt = /<ED_user>([\s\S]*?)<\/ED_user>/.exec(JSON.stringify(messages))?.[1] ?? '';
  const offered = (body.tools ?? []).map((tool) => tool.name);
  if (prompt.includes('[[cli-write]]') && offered.includes(cliToolName('write_file'))) {
    return { text: '<ID_loud>Writing it.</ID_loud>', toolCalls: [{ name: cliToolName('write_file'), input: { path: 'cli.txt', content: 'written through the CLI\n' } }] };
  }
  if (prompt.includes('[[cli-look]]') && offered.includes(cliToolName('view_image'))) {
    return { text: '', toolCalls: [{ name: cliToolName('view_image'), input: { path: 'dot.png' } }] };
  }
  if (prompt.includes('[[cli-bash]]') && offered.includes(cliToolName('bash'))) {
    return { text: '', toolCalls: [{ name: cliToolName('bash'), input: { command: 'echo from-cli-bash >> runs.txt; wc -l < runs.txt', explanation: 'count runs' } }] };
  }
  return { text: `<ID_loud>No tools here (${offered.length} offered).</ID_loud>` };
}

let harness: CliHarness;
let fake: FakeAnthropicServer;
let endpoint: AgentMcpEndpoint;
let orchestrator: Orchestrator;
let events: EventRecorder;
let scratch: string;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  harness = await startCliHarness(cliScript);
  ({ fake, endpoint, orchestrator, events, scratch } = harness);
});

afterAll(() => harness?.close());

const cliLayer: LayerModelConfig = { backend: 'claude_code_cli', model: 'claude-haiku-5-5', max_tokens: 512, cli_path: cliPath };
const sLayer: LayerModelConfig = { backend: 'openai_compatible', model: 's', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };

async function cliSession() {
  return orchestrator.createSession({ persona: 'tester', models: { c_model: cliLayer, s_model: sLayer } });
}

describe('tools on the Claude Code CLI backend (the real binary)', () => {
  it('a file tool runs through the app’s MCP endpoint: committed, run once, the reply reports it', async () => {
    const session = await cliSession();
    await orchestrator.sendUserMessage(session.id, { text: 'Please write the file [[cli-write]]' });
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 60_000 });
    expect(end.outcome, end.error).toBe('complete');
    expect(fs.readFileSync(path.join(dirs.dataDir, 'workspaces', session.id, 'cli.txt'), 'utf8')).toBe('written through the CLI\n');
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.map((call) => [call.name, call.status, call.decision?.by.via])).toEqual([['write_file', 'succeeded', 'rule:policy']]);
    expect(calls[0]!.providerCallId).toMatch(/^toolu_/);
    const db = await getDb();
    const loud = await db.message.findMany({ where: { sessionId: session.id, tag: 'ID_loud' } });
    expect(loud.map((row) => row.content)).toEqual(['Writing it.\n\nThe tool said: Created cli.txt (24 bytes)']);
    // The CLI got our tools and nothing else: no built-in tool, our permission tool named.
    const toolsSeen = (fake.requests.find((request) => JSON.stringify(request.body).includes('[[cli-write]]'))!.body as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(toolsSeen).toContain(cliToolName('write_file'));
    for (const builtIn of ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebFetch', 'WebSearch', 'Task']) expect(toolsSeen).not.toContain(builtIn);
    expect(endpoint.activeBindings).toBe(0); // the run's token is gone with it
  }, 90_000);

  it('view_image through the app’s MCP endpoint: the CLI hands the image to the model inside the tool result', async () => {
    const session = await cliSession();
    const workspace = path.join(dirs.dataDir, 'workspaces', session.id);
    fs.mkdirSync(workspace, { recursive: true });
    const sharp = (await import('sharp')).default;
    fs.writeFileSync(path.join(workspace, 'dot.png'), await sharp({ create: { width: 30, height: 20, channels: 3, background: '#ff0000' } }).png().toBuffer());
    await orchestrator.sendUserMessage(session.id, { text: 'Look at it [[cli-look]]' });
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 60_000 });
    expect(end.outcome, end.error).toBe('complete');
    const db = await getDb();
    expect((await db.message.findFirstOrThrow({ where: { sessionId: session.id, tag: 'ID_loud' } })).content).toBe('I was shown 1 image in the tool result.');
    const wire = fake.requests.map((request) => JSON.stringify(request.body)).find((body) => body.includes('"tool_result"') && body.includes('"image"'));
    expect(wire).toMatch(/"type":"image","source":\{"type":"base64","media_type":"image\/png","data":"iVBORw0KGgo/);
  }, 90_000);

  it('bash waits for the person through the permission tool; approved, it runs exactly once', async () => {
    const session = await cliSession();
    await orchestrator.sendUserMessage(session.id, { text: 'Count [[cli-bash]]' });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.status === 'awaiting_approval', timeoutMs: 60_000 });
    expect(card.call).toMatchObject({ name: 'bash', args: { command: 'echo from-cli-bash >> runs.txt; wc -l < runs.txt' } });
    expect(fs.existsSync(path.join(dirs.dataDir, 'workspaces', session.id, 'runs.txt'))).toBe(false);
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', args_hash: card.call.args_hash }, await ownerActor());
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 60_000 });
    expect(end.outcome, end.error).toBe('complete');
    expect(fs.readFileSync(path.join(dirs.dataDir, 'workspaces', session.id, 'runs.txt'), 'utf8')).toBe('from-cli-bash\n');
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.map((call) => [call.name, call.status, call.exitCode])).toEqual([['bash', 'succeeded', 0]]);
  }, 90_000);

  it('a denial reaches the model as the CLI reports it; nothing runs', async () => {
    const session = await cliSession();
    await orchestrator.sendUserMessage(session.id, { text: 'Count [[cli-bash]]' });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.status === 'awaiting_approval', timeoutMs: 60_000 });
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'deny', reason: 'not on this machine' }, await ownerActor());
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 60_000 });
    expect(end.outcome, end.error).toBe('complete');
    expect(fs.existsSync(path.join(dirs.dataDir, 'workspaces', session.id, 'runs.txt'))).toBe(false);
    const db = await getDb();
    const loud = await db.message.findFirst({ where: { sessionId: session.id, tag: 'ID_loud' } });
    expect(loud?.content).toContain('not on this machine');
  }, 90_000);

  it('the CLI reporting the app’s tool server not connected is a typed error, not a tool-less reply', async () => {
    const home = fs.mkdtempSync(path.join(scratch, 'home-'));
    const backend = new ClaudeCodeCliBackend({ cliPath, env: { HOME: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'dummy-key' } });
    const parts = await collectParts(
      backend.stream(
        {
          system: [{ text: 'You act.' }],
          messages: [{ role: 'user', content: 'Please write the file [[cli-write]]' }],
          model: 'claude-haiku-5-5',
          maxTokens: 256,
          tools: [{ name: 'write_file', description: 'Write a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
          toolServer: { name: 'agentcsd', url: 'http://127.0.0.1:9/mcp/agentcsd', token: 'x'.repeat(43), permissionTool: 'approve' },
        },
        new AbortController().signal,
      ),
    );
    const error = parts.find((part) => part.type === 'error');
    expect(error).toMatchObject({ error: { kind: 'tool_server_unavailable', message: expect.stringContaining('agentcsd') } });
    expect(parts.filter((part) => part.type === 'text-delta')).toEqual([]);
  }, 60_000);

  it('the token is in the child’s environment only: argv names the variable, never the value', () => {
    const token = 'secret-token-value-0123456789abcdefghijkl';
    const args = toolServerArgs({
      system: [],
      messages: [],
      model: 'm',
      maxTokens: 1,
      tools: [{ name: 'bash', description: 'd', inputSchema: { type: 'object' } }],
      toolServer: { name: 'agentcsd', url: 'http://127.0.0.1:1/mcp/agentcsd', token, permissionTool: 'approve' },
    });
    expect(args.join(' ')).not.toContain(token);
    expect(args.join(' ')).toContain('Bearer ${AGENTCSD_TOOL_TOKEN}');
    expect(args).toEqual(expect.arrayContaining(['--strict-mcp-config', '--permission-prompt-tool', 'mcp__agentcsd__approve']));
  });
});
