// Route handlers called directly with real Requests: the public REST contract and its error paths.
// Every bad request must answer a 4xx `{ error: { code, message } }` and change nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as personaItem from '@/app/api/personas/[name]/route';
import * as personas from '@/app/api/personas/route';
import * as sessionItem from '@/app/api/sessions/[id]/route';
import * as history from '@/app/api/sessions/[id]/history/route';
import * as pause from '@/app/api/sessions/[id]/pause/route';
import * as resume from '@/app/api/sessions/[id]/resume/route';
import * as messages from '@/app/api/sessions/[id]/messages/route';
import * as stopTurn from '@/app/api/sessions/[id]/stop-turn/route';
import * as exporter from '@/app/api/sessions/[id]/export/route';
import * as contextRoute from '@/app/api/sessions/[id]/context/route';
import * as sessions from '@/app/api/sessions/route';
import * as settings from '@/app/api/settings/route';
import * as backendTest from '@/app/api/backends/test/route';
import * as backendModels from '@/app/api/backends/models/route';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { folderFingerprint, useTempAppDirs } from '@/test/support/temp-app-dirs';

const personaText = '# Tester\r\nBytes must survive exactly: é ✓\n';
const dirs = useTempAppDirs({ personas: { tester: personaText } });

// Minds run on a scripted backend whose streams never finish (until stopped): nothing the loop
// writes can race the "changes nothing" checks, and no model process is ever started.
beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const base = 'http://127.0.0.1:3000';
function json(method: string, url: string, body: unknown): Request {
  return new Request(`${base}${url}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
function raw(method: string, url: string, body: string, contentType = 'application/json'): Request {
  return new Request(`${base}${url}`, { method, headers: { 'content-type': contentType }, body });
}
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });
const nameContext = (name: string) => ({ params: Promise.resolve({ name }) });

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(5);
}

async function databaseFingerprint(): Promise<string> {
  const db = await getDb();
  const [sessionRows, settingRows] = await Promise.all([db.session.findMany({ orderBy: { id: 'asc' } }), db.setting.findMany()]);
  return JSON.stringify([sessionRows, settingRows]);
}

async function snapshotEverything() {
  return { db: await databaseFingerprint(), data: folderFingerprint(path.join(dirs.dataDir, 'logs')), personas: folderFingerprint(dirs.personasDir) };
}

describe('sessions', () => {
  let sessionId = '';

  it('creates a session with its row and a byte-exact persona snapshot', async () => {
    const response = await sessions.POST(json('POST', '/api/sessions', { name: 'First', persona: 'tester' }), undefined);
    expect(response.status).toBe(201);
    const { session } = (await response.json()) as { session: Record<string, unknown> & { id: string } };
    sessionId = session.id;
    expect(session).toMatchObject({ name: 'First', persona: 'tester', status: 'active' });
    expect(session.persona_hash).toMatch(/^[0-9a-f]{64}$/);
    const snapshot = fs.readFileSync(path.join(dirs.dataDir, 'logs', sessionId, 'persona_core_snapshot.md'));
    expect(snapshot.equals(Buffer.from(personaText))).toBe(true);
  });

  it('lists, searches and pages', async () => {
    await sessions.POST(json('POST', '/api/sessions', { persona: 'tester' }), undefined);
    const all = await (await sessions.GET(new Request(`${base}/api/sessions`), undefined)).json();
    expect(all.total).toBe(2);
    const found = await (await sessions.GET(new Request(`${base}/api/sessions?search=Fir`), undefined)).json();
    expect(found.sessions.map((s: { name: string }) => s.name)).toEqual(['First']);
    const paged = await (await sessions.GET(new Request(`${base}/api/sessions?page=2&page_size=1`), undefined)).json();
    expect(paged.sessions).toHaveLength(1);
    expect(paged.total).toBe(2);
  });

  it('renames, pauses, resumes, reads history and deletes', async () => {
    const renamed = await sessionItem.PATCH(json('PATCH', `/api/sessions/${sessionId}`, { name: 'Renamed' }), idContext(sessionId));
    expect((await renamed.json()).session.name).toBe('Renamed');
    expect((await (await pause.POST(new Request(base, { method: 'POST' }), idContext(sessionId))).json()).session.status).toBe('paused');
    expect((await (await resume.POST(new Request(base, { method: 'POST' }), idContext(sessionId))).json()).session.status).toBe('active');
    const page = await (await history.GET(new Request(`${base}/api/sessions/${sessionId}/history?layer=external`), idContext(sessionId))).json();
    expect(page).toEqual({ messages: [], mood_and_criteria: [], next_before: null });
    expect((await sessionItem.DELETE(new Request(base, { method: 'DELETE' }), idContext(sessionId))).status).toBe(204);
    expect(fs.existsSync(path.join(dirs.dataDir, 'logs', sessionId))).toBe(false);
    await expectError(await sessionItem.GET(new Request(base), idContext(sessionId)), 404, 'not_found');
  });

  it('refuses bad input with a clear 4xx and changes nothing', async () => {
    const before = await snapshotEverything();
    const unknown = '99999999-9999-4999-8999-999999999999';
    await expectError(await sessions.POST(raw('POST', '/api/sessions', '{"persona":'), undefined), 400, 'invalid_json');
    await expectError(await sessions.POST(raw('POST', '/api/sessions', '{"persona":"tester"}', 'text/plain'), undefined), 415, 'unsupported_media_type');
    await expectError(await sessions.POST(json('POST', '/api/sessions', { persona: 42 }), undefined), 400, 'validation_failed');
    await expectError(await sessions.POST(json('POST', '/api/sessions', { persona: '../etc/passwd' }), undefined), 400, 'validation_failed');
    await expectError(await sessions.POST(json('POST', '/api/sessions', { persona: 'a\u0000b' }), undefined), 400, 'validation_failed');
    await expectError(await sessions.POST(json('POST', '/api/sessions', { persona: 'missing' }), undefined), 404, 'not_found');
    await expectError(await sessions.POST(json('POST', '/api/sessions', { persona: 'tester', extra: 1 }), undefined), 400, 'validation_failed');
    await expectError(
      await sessions.POST(json('POST', '/api/sessions', { persona: 'tester', models: { c_model: { backend: 'gpt', model: 'x', max_tokens: 1 } } }), undefined),
      400,
      'validation_failed',
    );
    await expectError(await sessions.POST(json('POST', '/api/sessions', { persona: 'tester', params: { pacing: 'sometimes' } }), undefined), 400, 'validation_failed');
    await expectError(await sessions.POST(raw('POST', '/api/sessions', JSON.stringify({ persona: 'tester', name: 'x'.repeat(600_000) })), undefined), 413, 'payload_too_large');
    await expectError(await sessions.GET(new Request(`${base}/api/sessions?page=0`), undefined), 400, 'validation_failed');
    await expectError(await sessionItem.GET(new Request(base), idContext('not-a-uuid')), 404, 'not_found');
    await expectError(await sessionItem.PATCH(json('PATCH', '/', { name: 'x' }), idContext(unknown)), 404, 'not_found');
    await expectError(await sessionItem.PATCH(json('PATCH', '/', { name: '' }), idContext(unknown)), 400, 'validation_failed');
    await expectError(await sessionItem.PATCH(json('PATCH', '/', { name: 7 }), idContext(unknown)), 400, 'validation_failed');
    await expectError(await sessionItem.DELETE(new Request(base, { method: 'DELETE' }), idContext(unknown)), 404, 'not_found');
    await expectError(await pause.POST(new Request(base, { method: 'POST' }), idContext(unknown)), 404, 'not_found');
    await expectError(await history.GET(new Request(`${base}/x?layer=dreams`), idContext(unknown)), 400, 'validation_failed');
    expect(await snapshotEverything()).toEqual(before);
  });
});

describe('messages', () => {
  it('accepts a message with 202, shows the mind at work, stops the reply, and refuses what it cannot take', async () => {
    const created = await (await sessions.POST(json('POST', '/api/sessions', { persona: 'tester' }), undefined)).json();
    const id = created.session.id as string;
    const accepted = await messages.POST(json('POST', `/api/sessions/${id}/messages`, { text: '  Hello <b>there</b>  ' }), idContext(id));
    expect(accepted.status).toBe(202);
    const { message } = await accepted.json();
    expect(message).toMatchObject({ layer: 'external', tag: 'ED_user', content: 'Hello <b>there</b>', spontaneous: false, interrupted: false });

    const detail = await (await sessionItem.GET(new Request(base), idContext(id))).json();
    expect(detail.mind).toMatchObject({ running: true, turn: { spontaneous: false }, degraded: null });
    expect(detail.usage.internal).toMatchObject({ calls: 0, costUsd: 0 });

    // The context viewer: the exact prompts the layers sent, with token counts. The turn records
    // its prompt when it reaches its model call, a few store reads after the 202 (later on PostgreSQL).
    const prompts = await vi.waitFor(
      async () => {
        const body = await (await contextRoute.GET(new Request(base), idContext(id))).json();
        if (!body.internal) throw new Error('the turn has not sent its prompt yet');
        return body;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(await (await stopTurn.POST(new Request(base, { method: 'POST' }), idContext(id))).json()).toEqual({ stopped: true });
    expect(prompts.running).toBe(true);
    expect(prompts.subconscious.system[0].text.startsWith(personaText.trimEnd())).toBe(true);
    expect(prompts.subconscious.user.text).toMatch(/^<S_quiet_history>.*<ID_loud>.*<\/ID_loud>$/s);
    // Only what could form one of our tags is escaped: <b> reaches the model as typed.
    expect(prompts.internal.user.text).toBe('<ED_user>Hello <b>there</b></ED_user>\n<ID_quiet_history></ID_quiet_history>');
    expect(prompts.internal.user.estimated_tokens).toBeGreaterThan(0);

    const db = await getDb();
    const count = () => db.message.count({ where: { sessionId: id, tag: 'ED_user' } });
    const before = await count();
    const unknown = '99999999-9999-4999-8999-999999999999';
    await expectError(await messages.POST(json('POST', '/', { text: '   ' }), idContext(id)), 400, 'validation_failed');
    await expectError(await messages.POST(json('POST', '/', {}), idContext(id)), 400, 'validation_failed');
    await expectError(await messages.POST(json('POST', '/', { text: 'x', role: 'system' }), idContext(id)), 400, 'validation_failed');
    await expectError(await messages.POST(json('POST', '/', { text: 'x'.repeat(20_001) }), idContext(id)), 400, 'validation_failed');
    // A NUL character (PostgreSQL cannot store one in text; no keyboard sends one).
    const nul = await messages.POST(json('POST', '/', { text: 'hi\u0000there' }), idContext(id));
    expect(nul.status).toBe(400);
    expect((await nul.json()).error.message).toContain('must not contain NUL characters');
    await expectError(await messages.POST(raw('POST', '/', '{"text":'), idContext(id)), 400, 'invalid_json');
    await expectError(await messages.POST(raw('POST', '/', 'text=hi', 'application/x-www-form-urlencoded'), idContext(id)), 415, 'unsupported_media_type');
    await expectError(await messages.POST(json('POST', '/', { text: 'hi' }), idContext(unknown)), 404, 'not_found');
    await expectError(await stopTurn.POST(new Request(base, { method: 'POST' }), idContext(unknown)), 404, 'not_found');
    await expectError(await contextRoute.GET(new Request(base), idContext(unknown)), 404, 'not_found');
    await pause.POST(new Request(base, { method: 'POST' }), idContext(id));
    await expectError(await messages.POST(json('POST', '/', { text: 'are you there?' }), idContext(id)), 409, 'conflict');
    expect(await count()).toBe(before);
    expect((await (await sessionItem.GET(new Request(base), idContext(id))).json()).mind.running).toBe(false);
  });
});

describe('export', () => {
  it('exports a session as JSON (keys removed) and as a Markdown transcript; refuses bad formats', async () => {
    const created = await (
      await sessions.POST(
        json('POST', '/api/sessions', {
          persona: 'tester',
          name: 'Export me',
          models: { c_model: { backend: 'anthropic', model: 'claude-sonnet-4-5', max_tokens: 100, api_key: 'sk-ant-secret-1234' } },
        }),
        undefined,
      )
    ).json();
    const id = created.session.id as string;
    await messages.POST(json('POST', '/', { text: '# not a heading\n> nor a quote' }), idContext(id));
    const asJson = await exporter.GET(new Request(`${base}/x?format=json`), idContext(id));
    expect(asJson.headers.get('content-disposition')).toMatch(/attachment; filename="agentcsd-Export-me.json"/);
    const text = await asJson.text();
    expect(text).not.toContain('sk-ant-secret');
    const body = JSON.parse(text);
    expect(body.session.models.c_model).toMatchObject({ api_key_set: true, api_key_hint: '…1234' });
    expect(body.messages.map((row: { tag: string }) => row.tag)).toEqual(['ED_user']);
    const asMarkdown = await (await exporter.GET(new Request(`${base}/x?format=md`), idContext(id))).text();
    expect(asMarkdown).toContain('# Export me');
    // User text is quoted, so it cannot restructure the transcript.
    expect(asMarkdown).toContain('> # not a heading\n> > nor a quote');
    await expectError(await exporter.GET(new Request(`${base}/x?format=pdf`), idContext(id)), 400, 'validation_failed');
    await expectError(await exporter.GET(new Request(`${base}/x`), idContext('99999999-9999-4999-8999-999999999999')), 404, 'not_found');
  });
});

describe('personas', () => {
  it('creates, reads, updates and deletes through the API', async () => {
    expect((await personas.POST(json('POST', '/api/personas', { name: 'made', content: '# Made' }), undefined)).status).toBe(201);
    const read = await (await personaItem.GET(new Request(base), nameContext('made'))).json();
    expect(read.persona.content).toBe('# Made');
    const updated = await (await personaItem.PUT(json('PUT', '/', { content: '# Made v2' }), nameContext('made'))).json();
    expect(updated.persona.content).toBe('# Made v2');
    const list = await (await personas.GET(new Request(base), undefined)).json();
    expect(list.personas.map((persona: { name: string }) => persona.name)).toEqual(['made', 'tester']);
    expect((await personaItem.DELETE(new Request(base, { method: 'DELETE' }), nameContext('made'))).status).toBe(204);
  });

  it('refuses hostile names, duplicates and bad bodies without touching the folder', async () => {
    const before = folderFingerprint(dirs.personasDir);
    for (const name of ['..', '../x', 'a/b', 'a\u0000b', 'con', 'NUL', '.hidden', '']) {
      await expectError(await personas.POST(json('POST', '/api/personas', { name, content: 'x' }), undefined), 400, 'validation_failed');
      await expectError(await personaItem.PUT(json('PUT', '/', { content: 'x' }), nameContext(name)), 400, 'validation_failed');
      await expectError(await personaItem.DELETE(new Request(base, { method: 'DELETE' }), nameContext(name)), 400, 'validation_failed');
    }
    await expectError(await personas.POST(json('POST', '/api/personas', { name: 'tester', content: 'dup' }), undefined), 409, 'conflict');
    await expectError(await personas.POST(json('POST', '/api/personas', { name: 'ok', content: 5 }), undefined), 400, 'validation_failed');
    await expectError(await personas.POST(json('POST', '/api/personas', { name: 'ok', content: 'a\u0000' }), undefined), 400, 'validation_failed');
    await expectError(await personaItem.PUT(json('PUT', '/', { content: 'x' }), nameContext('missing')), 404, 'not_found');
    await expectError(await personaItem.GET(new Request(base), nameContext('missing')), 404, 'not_found');
    expect(folderFingerprint(dirs.personasDir)).toBe(before);
  });
});

describe('settings', () => {
  const layer = (extra: object = {}) => ({ backend: 'openai_compatible', model: 'llama3', max_tokens: 512, endpoint: 'http://localhost:11434', ...extra });
  const params = { summary_every_n: 5, pacing: 'continuous', trigger_mode: 'length', trigger_threshold: 120, spontaneous_cap: 2 };

  it('saves, keeps the API key write-only, and clears it on request', async () => {
    const saved = await settings.PUT(json('PUT', '/api/settings', { c_model: layer({ api_key: 'sk-secret-1234' }), s_model: layer(), params }), undefined);
    expect(saved.status).toBe(200);
    const text = await (await settings.GET(new Request(base), undefined)).text();
    expect(text).not.toContain('sk-secret');
    const body = JSON.parse(text);
    expect(body.settings.c_model).toMatchObject({ api_key_set: true, api_key_hint: '…1234', model: 'llama3' });
    expect(body.settings.params).toEqual(params);
    // Saving again without a key keeps it; an empty string removes it.
    await settings.PUT(json('PUT', '/api/settings', { c_model: layer(), s_model: layer(), params }), undefined);
    expect((await (await settings.GET(new Request(base), undefined)).json()).settings.c_model.api_key_set).toBe(true);
    await settings.PUT(json('PUT', '/api/settings', { c_model: layer({ api_key: '' }), s_model: layer(), params }), undefined);
    expect((await (await settings.GET(new Request(base), undefined)).json()).settings.c_model.api_key_set).toBe(false);
  });

  it('new sessions take the saved defaults', async () => {
    const created = await (await sessions.POST(json('POST', '/api/sessions', { persona: 'tester' }), undefined)).json();
    expect(created.session.models.c_model.model).toBe('llama3');
    expect(created.session.params).toEqual(params);
  });

  it('refuses invalid settings with a clear message and keeps the old ones', async () => {
    const before = await databaseFingerprint();
    const response = await settings.PUT(json('PUT', '/api/settings', { c_model: layer({ endpoint: undefined }), s_model: layer(), params }), undefined);
    await expectError(response.clone(), 400, 'validation_failed');
    expect((await response.json()).error.message).toMatch(/endpoint is required/);
    await expectError(await settings.PUT(json('PUT', '/api/settings', { c_model: layer({ max_tokens: -1 }), s_model: layer(), params }), undefined), 400, 'validation_failed');
    await expectError(await settings.PUT(json('PUT', '/api/settings', { c_model: layer({ endpoint: 'ftp://x' }), s_model: layer(), params }), undefined), 400, 'validation_failed');
    await expectError(await settings.PUT(json('PUT', '/api/settings', { c_model: layer() }), undefined), 400, 'validation_failed');
    expect(await databaseFingerprint()).toBe(before);
  });
});

describe('every route refuses bad input with a clear 4xx and changes nothing', () => {
  type Handler = (request: Request, context: never) => Promise<Response>;
  const unknownId = '00000000-0000-4000-8000-000000000000';
  // Body-taking routes, each with a context that exists (so only the body is at fault).
  const bodyRoutes = async (): Promise<[string, string, Handler, unknown][]> => {
    const existing = (await (await sessions.POST(json('POST', '/api/sessions', { persona: 'tester', name: 'Target' }), undefined)).json()).session.id;
    await pause.POST(new Request(`${base}/api/sessions/${existing}/pause`, { method: 'POST' }), idContext(existing));
    return [
      ['POST', '/api/sessions', sessions.POST as Handler, undefined],
      ['PATCH', `/api/sessions/${existing}`, sessionItem.PATCH as Handler, idContext(existing)],
      ['POST', `/api/sessions/${existing}/messages`, messages.POST as Handler, idContext(existing)],
      ['POST', '/api/personas', personas.POST as Handler, undefined],
      ['PUT', '/api/personas/tester', personaItem.PUT as Handler, nameContext('tester')],
      ['PUT', '/api/settings', settings.PUT as Handler, undefined],
      ['POST', '/api/backends/test', backendTest.POST as Handler, undefined],
      ['POST', '/api/backends/models', backendModels.POST as Handler, undefined],
    ];
  };
  it('malformed JSON, wrong types, wrong media type, oversized bodies', async () => {
    const routes = await bodyRoutes();
    const before = await snapshotEverything();
    for (const [method, url, handler, context] of routes) {
      const cases: [Request, number, string][] = [
        [raw(method, url, '{"unterminated": '), 400, 'invalid_json'],
        [raw(method, url, ''), 400, 'invalid_json'],
        [raw(method, url, 'null'), 400, 'validation_failed'],
        [raw(method, url, '[]'), 400, 'validation_failed'],
        [raw(method, url, '42'), 400, 'validation_failed'],
        [raw(method, url, '"text"'), 400, 'validation_failed'],
        [json(method, url, { unexpected: true, name: 12, persona: ['x'], text: { nested: 1 }, content: 5, c_model: 'x' }), 400, 'validation_failed'],
        [raw(method, url, '{"a":1}', 'text/plain'), 415, 'unsupported_media_type'],
        [raw(method, url, 'a=1', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type'],
        [raw(method, url, JSON.stringify({ text: 'x'.repeat(600 * 1024) })), 413, 'payload_too_large'],
      ];
      for (const [request, status, code] of cases) {
        const response = await handler(request, context as never);
        expect(`${method} ${url} → ${response.status}`).toBe(`${method} ${url} → ${status}`);
        await expectError(response, status, code);
      }
    }
    expect(await snapshotEverything()).toEqual(before);
  });

  it('unknown and malformed ids answer 404 on every id route', async () => {
    const before = await snapshotEverything();
    const idRoutes: [string, Handler, () => Request][] = [
      ['GET session', sessionItem.GET as Handler, () => new Request(`${base}/x`)],
      ['PATCH session', sessionItem.PATCH as Handler, () => json('PATCH', '/x', { name: 'n' })],
      ['DELETE session', sessionItem.DELETE as Handler, () => new Request(`${base}/x`, { method: 'DELETE' })],
      ['history', history.GET as Handler, () => new Request(`${base}/x?layer=external`)],
      ['pause', pause.POST as Handler, () => new Request(`${base}/x`, { method: 'POST' })],
      ['resume', resume.POST as Handler, () => new Request(`${base}/x`, { method: 'POST' })],
      ['messages', messages.POST as Handler, () => json('POST', '/x', { text: 'hi' })],
      ['stop-turn', stopTurn.POST as Handler, () => new Request(`${base}/x`, { method: 'POST' })],
      ['export', exporter.GET as Handler, () => new Request(`${base}/x?format=json`)],
      ['context', contextRoute.GET as Handler, () => new Request(`${base}/x`)],
    ];
    for (const [name, handler, request] of idRoutes) {
      for (const id of [unknownId, 'not-a-uuid', '../../etc/passwd', '', 'x'.repeat(5000)]) {
        const response = await handler(request(), idContext(id) as never);
        expect(`${name} ${id.slice(0, 20)} → ${response.status}`).toBe(`${name} ${id.slice(0, 20)} → 404`);
        await expectError(response, 404, 'not_found');
      }
    }
    for (const [name, handler] of [['GET persona', personaItem.GET], ['PUT persona', personaItem.PUT], ['DELETE persona', personaItem.DELETE]] as [string, Handler][]) {
      const response = await handler(json('PUT', '/x', { content: 'x' }), nameContext('nobody') as never);
      expect(`${name} → ${response.status}`).toBe(`${name} → 404`);
    }
    expect(await snapshotEverything()).toEqual(before);
  });
});
