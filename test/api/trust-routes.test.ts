// Settings › Tools › Trusted sources and Settings › MCP servers › Approve descriptions through
// their routes (issue 32): hosts normalised, bad input a 400 that changes nothing, an unknown
// server a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as trustRoute from '@/app/api/trust/route';
import * as approveRoute from '@/app/api/mcp-servers/[name]/approve-descriptions/route';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readTrust } from '@/lib/store/untrusted-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud>' }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const put = (body: string) => trustRoute.PUT(new Request('http://127.0.0.1:3000/api/trust', { method: 'PUT', headers: { 'content-type': 'application/json' }, body }), { params: Promise.resolve({}) });

describe('/api/trust', () => {
  it('stores hosts, servers and skills (lower case, sorted, once); refuses what is not a host or a skill name and changes nothing', async () => {
    expect(await (await trustRoute.GET(new Request('http://127.0.0.1:3000/api/trust'), { params: Promise.resolve({}) })).json()).toEqual({ trust: { hosts: [], mcp_servers: [], skills: [] } });
    const saved = await put(JSON.stringify({ hosts: ['Docs.Python.org', '127.0.0.1:8080', 'docs.python.org'], mcp_servers: ['github'], skills: ['pdf-tools', 'field-notes', 'pdf-tools'] }));
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ trust: { hosts: ['127.0.0.1:8080', 'docs.python.org'], mcp_servers: ['github'], skills: ['field-notes', 'pdf-tools'] } });
    for (const body of ['{"hosts":"x"}', '{"hosts":["https://evil.example/path"]}', '{"hosts":["a b"]}', '{"hosts":[],"mcp_servers":[],"extra":1}', 'not json', `{"hosts":[${'"a.b",'.repeat(250)}"c.d"]}`, '{"skills":["../etc"]}', '{"skills":["Has Spaces"]}']) {
      const refused = await put(body);
      expect(refused.status, body.slice(0, 40)).toBe(400);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toMatch(/^(validation_failed|invalid_json)$/);
    }
    expect(await readTrust()).toEqual({ hosts: ['127.0.0.1:8080', 'docs.python.org'], mcp_servers: ['github'], skills: ['field-notes', 'pdf-tools'] });
  });

  it('approving the descriptions of a server that does not exist is a 404', async () => {
    const response = await approveRoute.POST(new Request('http://127.0.0.1:3000/api/mcp-servers/nope/approve-descriptions', { method: 'POST' }), { params: Promise.resolve({ name: 'nope' }) });
    expect(response.status).toBe(404);
  });
});
