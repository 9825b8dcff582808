// The user's MCP server (server-everything from npm, over stdio) on both API backends, through
// the real adapters, the orchestrator and the fakes: its tools are offered after the built-ins,
// a call it marks read-only runs at once, one it does not mark waits for a card, and the model
// reads both results. (The Claude Code CLI reaches the same registry through the app's MCP
// endpoint: claude-cli-tools.test.ts.)
import { ownerActor } from '@/lib/people/rights';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/store/db';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { builtinToolNames } from '@/lib/agent/tool-registry';
import { emptyMcpSettings } from '@/lib/config/mcp-config';
import { writeTrust } from '@/lib/store/untrusted-repository';
import { apiBackendNames, useApiBackendsHarness } from '@/test/support/api-backends-harness';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const harness = useApiBackendsHarness(dirs, async ({ orchestrator }) => {
  await orchestrator.mcp.configure({ ...emptyMcpSettings, mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } } });
  await orchestrator.mcp.settled();
  // The user trusts this server (Settings › Tools): its descriptions and results are not untrusted content (issue 32; the corpus tests that path).
  await writeTrust({ hosts: [], mcp_servers: ['everything'], skills: [] });
});

function offeredNames(body: unknown): string[] {
  const tools = (body as { tools?: { name?: string; function?: { name?: string } }[] }).tools ?? [];
  return tools.map((tool) => (tool.name ?? tool.function?.name)!);
}

describe.each(apiBackendNames)('MCP tools on %s', (backend) => {
  it('offered after the built-ins; read-only runs at once, the other waits for approval; both results reach the model', async () => {
    const { orchestrator, events } = harness;
    const layer = harness.layer(backend);
    const fake = backend === 'anthropic' ? harness.anthropic : harness.openai;
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
    const before = fake.requests.length;
    await orchestrator.sendUserMessage(session.id, { text: 'Ask your MCP server [[mcp]]' });
    const card = await events.waitFor('tool-call', {
      where: (event) => event.sessionId === session.id && event.call.name === 'everything__toggle-simulated-logging' && event.call.status === 'awaiting_approval',
      timeoutMs: 15_000,
    });
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', args_hash: card.call.args_hash, session_id: session.id }, await ownerActor());
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 15_000 });
    expect(end.outcome, end.error).toBe('complete');

    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.map((call) => [call.name, call.approval, call.status])).toEqual([
      ['everything__echo', 'none', 'succeeded'],
      ['everything__toggle-simulated-logging', 'required', 'succeeded'],
    ]);
    const internal = fake.requests.slice(before).find((request) => offeredNames(request.body).includes('everything__echo'))!;
    const names = offeredNames(internal.body);
    expect(names.slice(0, builtinToolNames.length)).toEqual([...builtinToolNames]);
    expect(names.slice(builtinToolNames.length)).toEqual([...names.slice(builtinToolNames.length)].sort());
    const db = await getDb();
    const reply = await db.message.findFirst({ where: { sessionId: session.id, tag: 'ID_loud', turnId: end.turnId }, orderBy: { id: 'desc' } });
    expect(reply?.content).toContain('Here is what the tools said: Echo: from the mind | ');
    expect(reply?.content).toMatch(/logging/i);
  }, 30_000);
});
