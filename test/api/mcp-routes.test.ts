// /api/mcp-servers with real Requests, the real store and the real pool running server-everything:
// paste, see (secrets masked), test, per-tool choices kept across a re-paste, and every bad body a
// clear 400 that changes nothing.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as servers from '@/app/api/mcp-servers/route';
import * as testRoute from '@/app/api/mcp-servers/[name]/test/route';
import * as tools from '@/app/api/tools/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readMcpSettings } from '@/lib/store/settings-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const base = 'http://127.0.0.1:3000';
const put = (body: unknown) => new Request(`${base}/api/mcp-servers`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const getServers = () => servers.GET(new Request(`${base}/api/mcp-servers`), undefined);
const putServers = (body: unknown) => servers.PUT(put(body), undefined);
const nameContext = (name: string) => ({ params: Promise.resolve({ name }) });
type ServersBody = { mcpServers: Record<string, { env?: Record<string, string> }>; tools: Record<string, Record<string, unknown>>; disabled: string[]; servers: { name: string; state: string; tool_count: number; tools: { name: string; enabled: boolean; approval: string }[] }[] };

async function expectError(response: Response, status: number, code: string, pattern: RegExp) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(pattern);
}

const paste = { mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], env: { DEMO_TOKEN: 'demo-secret-value-1234' } } } };

describe('/api/mcp-servers', () => {
  it('a paste is saved and started; GET masks its secrets; Test lists the tools', async () => {
    const saved = await putServers(paste);
    expect(saved.status).toBe(200);
    await getOrchestrator().mcp.settled();
    const body = (await (await getServers()).json()) as ServersBody;
    expect(JSON.stringify(body)).not.toContain('demo-secret-value-1234');
    expect(body.mcpServers.everything!.env).toEqual({ DEMO_TOKEN: '••••1234' });
    expect(body.servers[0]).toMatchObject({ name: 'everything', state: 'ready' });
    expect(body.servers[0]!.tool_count).toBeGreaterThan(5);

    const tested = (await (await testRoute.POST(new Request(`${base}/x`, { method: 'POST' }), nameContext('everything'))).json()) as { ok: boolean; tools: { name: string }[]; error: string | null };
    expect(tested.ok).toBe(true);
    expect(tested.error).toBeNull();
    expect(tested.tools.map((tool) => tool.name)).toContain('echo');

    // The Settings list of tools has the MCP ones with where they come from.
    const listed = (await (await tools.GET(new Request(`${base}/api/tools`), undefined)).json()) as { tools: { name: string; source: unknown }[] };
    expect(listed.tools.find((tool) => tool.name === 'everything__echo')).toMatchObject({ source: { mcpServer: 'everything' } });
  });

  it('the masked form sent back keeps the secret; per-tool choices survive a re-paste of the servers alone', async () => {
    const current = (await (await getServers()).json()) as ServersBody;
    const withChoices = await putServers({ mcpServers: current.mcpServers, tools: { everything: { echo: { enabled: false } } }, disabled: [] });
    expect(withChoices.status).toBe(200);
    expect(((await readMcpSettings()).mcpServers.everything as { env: Record<string, string> }).env.DEMO_TOKEN).toBe('demo-secret-value-1234');
    expect((await putServers({ mcpServers: current.mcpServers })).status).toBe(200);
    const after = await readMcpSettings();
    expect(after.tools).toEqual({ everything: { echo: { enabled: false } } });
    expect(getOrchestrator().mcp.tools().map((tool) => tool.definition.name)).not.toContain('everything__echo');
  });

  it('bad bodies: a clear 400 and nothing changes', async () => {
    const before = JSON.stringify(await readMcpSettings());
    await expectError(await putServers('{not json'), 400, 'invalid_json', /JSON/);
    await expectError(await putServers({ mcpServers: { x: { args: [] } } }), 400, 'validation_failed', /command|url/);
    await expectError(await putServers({ mcpServers: { 'a/b': { command: 'x' } } }), 400, 'validation_failed', /server name "a\/b"/);
    await expectError(await putServers({ mcpServers: { other: { command: 'x', env: { K: '••••1234' } } } }), 400, 'validation_failed', /other\.env\.K is a masked value/);
    await expectError(await putServers({ servers: {} }), 400, 'validation_failed', /mcpServers/);
    expect(JSON.stringify(await readMcpSettings())).toBe(before);
    await expectError(await testRoute.POST(new Request(`${base}/x`, { method: 'POST' }), nameContext('nobody')), 404, 'not_found', /nobody/);
  });

  it('removing a server stops it', async () => {
    const pid = getOrchestrator().mcp.status()[0]!.pid!;
    expect((await putServers({ mcpServers: {} })).status).toBe(200);
    expect(getOrchestrator().mcp.status()).toEqual([]);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
