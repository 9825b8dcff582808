// The tool routes with real Requests against the real store: listing calls, deciding (once,
// 409 after), cancelling, rules, and the sandbox status — every bad request a clear 4xx that
// changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as toolCalls from '@/app/api/sessions/[id]/tool-calls/route';
import * as cancel from '@/app/api/tool-calls/[id]/cancel/route';
import * as decision from '@/app/api/tool-calls/[id]/decision/route';
import * as ruleItem from '@/app/api/tool-rules/[id]/route';
import * as rules from '@/app/api/tool-rules/route';
import * as tools from '@/app/api/tools/route';
import * as exporter from '@/app/api/sessions/[id]/export/route';
import * as importer from '@/app/api/sessions/import/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { insertAgentStep } from '@/lib/store/tool-calls-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });

beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const base = 'http://127.0.0.1:3000';
const post = (url: string, body: unknown) => new Request(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = (url: string) => new Request(`${base}${url}`);
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(5);
}

const layer = { backend: 'openai_compatible' as const, model: 'fake', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };

async function sessionWithCard(command = 'ls -la') {
  const session = await getOrchestrator().createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
  const [call] = await insertAgentStep({
    sessionId: session.id,
    turn: { turnId: crypto.randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p' },
    step: 0,
    assistantText: '',
    calls: [{ id: crypto.randomUUID(), providerCallId: 'c1', name: 'bash', args: { command }, approval: 'required', status: 'awaiting_approval' }],
  });
  return { session, call: call! };
}

describe('tool call routes', () => {
  it('lists a session’s calls, filtered by status; 404 for an unknown session', async () => {
    const { session, call } = await sessionWithCard();
    const all = (await (await toolCalls.GET(get(`/api/sessions/${session.id}/tool-calls`), idContext(session.id))).json()) as { tool_calls: { id: string }[] };
    expect(all.tool_calls.map((item) => item.id)).toEqual([call.id]);
    const none = (await (await toolCalls.GET(get(`/api/sessions/${session.id}/tool-calls?status=running`), idContext(session.id))).json()) as { tool_calls: unknown[] };
    expect(none.tool_calls).toEqual([]);
    await expectError(await toolCalls.GET(get(`/api/sessions/${session.id}/tool-calls?status=bogus`), idContext(session.id)), 400, 'validation_failed');
    const unknown = crypto.randomUUID();
    await expectError(await toolCalls.GET(get(`/api/sessions/${unknown}/tool-calls`), idContext(unknown)), 404, 'not_found');
  });

  it('a decision applies once: 200, then 409 with what it is now', async () => {
    const { session, call } = await sessionWithCard();
    const first = await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'deny', reason: 'not today', session_id: session.id, args_hash: call.argsHash }), idContext(call.id));
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ tool_call: { status: 'denied', result: 'Denied by the user: not today' }, rule: null });
    const replay = await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'approve' }), idContext(call.id));
    await expectError(replay, 409, 'conflict');
  });

  it('refuses a foreign session, other arguments, bad edits and malformed bodies, changing nothing', async () => {
    const { call } = await sessionWithCard();
    const other = crypto.randomUUID();
    await expectError(await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'approve', session_id: other }), idContext(call.id)), 404, 'not_found');
    await expectError(await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'approve', args_hash: 'a'.repeat(64) }), idContext(call.id)), 409, 'conflict');
    await expectError(await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'approve', edited_args: { command: '' } }), idContext(call.id)), 400, 'validation_failed');
    await expectError(await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'deny', remember: 'session' }), idContext(call.id)), 400, 'validation_failed');
    await expectError(await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'maybe' }), idContext(call.id)), 400, 'validation_failed');
    await expectError(await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'approve', extra: 1 }), idContext(call.id)), 400, 'validation_failed');
    await expectError(await decision.POST(new Request(`${base}/x`, { method: 'POST', body: 'decision=approve' }), idContext(call.id)), 415, 'unsupported_media_type');
    await expectError(await decision.POST(post('/x', { decision: 'approve' }), idContext('not-a-uuid')), 404, 'not_found');
    const db = await getDb();
    expect((await db.toolCall.findUniqueOrThrow({ where: { id: call.id } })).status).toBe('awaiting_approval');
  });

  it('edit then approve with "always allow" stores the edited command and a structural rule', async () => {
    const { session, call } = await sessionWithCard('ls');
    const response = await decision.POST(post(`/api/tool-calls/${call.id}/decision`, { decision: 'approve', edited_args: { command: 'ls -la' }, remember: 'session' }), idContext(call.id));
    expect(await response.json()).toMatchObject({ tool_call: { status: 'approved', args: { command: 'ls -la' } }, rule: { scope: 'session', tool: 'bash', matcher: { kind: 'command', argv: ['ls', '-la'] } } });
    const listed = (await (await rules.GET(get(`/api/tool-rules?session_id=${session.id}`), undefined)).json()) as { rules: { id: string }[] };
    expect(listed.rules).toHaveLength(1);
    expect((await ruleItem.DELETE(new Request(`${base}/x`, { method: 'DELETE' }), idContext(listed.rules[0]!.id))).status).toBe(204);
    await expectError(await ruleItem.DELETE(new Request(`${base}/x`, { method: 'DELETE' }), idContext(listed.rules[0]!.id)), 404, 'not_found');
  });

  it('rules: created with a valid matcher; a glob that leaves the workspace or a rule without its owner is refused', async () => {
    const created = await rules.POST(post('/api/tool-rules', { scope: 'persona', persona: 'tester', tool: 'bash', effect: 'deny', matcher: { kind: 'command-prefix', argv: ['rm'] } }), undefined);
    expect(created.status).toBe(201);
    await expectError(await rules.POST(post('/api/tool-rules', { scope: 'persona', persona: 'tester', tool: 'write_file', effect: 'allow', matcher: { kind: 'path-glob', glob: '../**' } }), undefined), 400, 'validation_failed');
    await expectError(await rules.POST(post('/api/tool-rules', { scope: 'session', tool: 'bash', effect: 'allow', matcher: { kind: 'tool' } }), undefined), 400, 'validation_failed');
    await expectError(await rules.POST(post('/api/tool-rules', { scope: 'persona', persona: '../etc', tool: 'bash', effect: 'allow', matcher: { kind: 'tool' } }), undefined), 400, 'validation_failed');
  });

  it('cancel answers cancelled:false for a call that is not running; the sandbox status is reported', async () => {
    const { call } = await sessionWithCard();
    expect(await (await cancel.POST(post('/x', {}), idContext(call.id))).json()).toEqual({ cancelled: false });
    const status = (await (await tools.GET(get("/api/tools"), undefined)).json()) as { sandbox: { available: boolean }; tools: { name: string; approval: string }[] };
    expect(typeof status.sandbox.available).toBe('boolean');
    expect(status.tools.find((tool) => tool.name === 'bash')?.approval).toBe('required');
  });
});

describe('tool calls in exports and imports', () => {
  it('both exports carry the calls; an import brings them back, an unfinished one expired, never to run', async () => {
    const { session, call } = await sessionWithCard('echo exported');
    const db = await getDb();
    await db.toolCall.create({
      data: { ...(await db.toolCall.findUniqueOrThrow({ where: { id: call.id } })), id: crypto.randomUUID(), providerCallId: 'c2', status: 'succeeded', result: 'exported\n[exit code 0]', exitCode: 0, decision: JSON.stringify({ decision: 'approve', by: 'user' }) },
    });
    const json = await (await exporter.GET(get(`/api/sessions/${session.id}/export?format=json`), idContext(session.id))).text();
    const file = JSON.parse(json) as { tool_calls: { status: string; result: string | null }[] };
    expect(file.tool_calls.map((item) => item.status)).toEqual(['awaiting_approval', 'succeeded']);
    const markdown = await (await exporter.GET(get(`/api/sessions/${session.id}/export?format=md`), idContext(session.id))).text();
    expect(markdown).toContain('## Tool calls');
    expect(markdown).toContain('> echo exported');

    const imported = await importer.POST(new Request(`${base}/api/sessions/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json }), undefined);
    expect(imported.status, await imported.clone().text()).toBe(201);
    const newId = ((await imported.json()) as { session: { id: string } }).session.id;
    const calls = await db.toolCall.findMany({ where: { sessionId: newId }, orderBy: { position: 'asc' } });
    expect(calls.map((item) => [item.status, item.isError])).toEqual([
      ['expired', true],
      ['succeeded', false],
    ]);
    expect(calls[0]!.result).toMatch(/^Expired/);
  });
});
