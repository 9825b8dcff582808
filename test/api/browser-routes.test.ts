// /api/sessions/:id/browser and …/browser/input (issue 45 §5) with real Requests, the real store and
// the real Chromium: bad bodies are 400 and change nothing, an unknown session 404, a browser that
// is not open 409; take over, the person's keys reach the page, give back.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as browserRoute from '@/app/api/sessions/[id]/browser/route';
import * as inputRoute from '@/app/api/sessions/[id]/browser/input/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
let site: http.Server;
let host = '';

beforeAll(async () => {
  site = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Form</title><input aria-label="Name" autofocus>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud>', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
  site.close();
});

const context = (id: string) => ({ params: Promise.resolve({ id }) });
const post = (body: unknown) => new Request('http://127.0.0.1:3000/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const read = async (response: Response) => ({ status: response.status, body: response.status === 204 ? null : ((await response.json()) as Record<string, any>) });

describe('the browser routes', () => {
  it('refuse bad bodies, unknown sessions and a browser that is not open', async () => {
    const session = await getOrchestrator().createSession({ persona: 'tester' });
    expect(await read(await browserRoute.GET(new Request('http://x'), context(session.id)))).toEqual({ status: 200, body: { browser: { open: false, taken_over: false, url: null, tabs: 0 } } });
    expect((await read(await browserRoute.GET(new Request('http://x'), context('00000000-0000-4000-8000-000000000000')))).status).toBe(404);
    expect((await read(await browserRoute.GET(new Request('http://x'), context('../etc')))).status).toBe(404); // an id that cannot exist
    for (const body of [{ action: 'steal' }, { action: 'take', extra: 1 }, '{', []]) expect((await read(await browserRoute.POST(post(body), context(session.id)))).status).toBe(400);
    const closed = await read(await browserRoute.POST(post({ action: 'take' }), context(session.id)));
    expect(closed).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    for (const body of [{ type: 'click', x: -1, y: 2 }, { type: 'key', key: 'Enter; rm -rf /' }, { type: 'text', text: '' }, { type: 'eval', code: '1' }]) {
      expect((await read(await inputRoute.POST(post(body), context(session.id)))).status).toBe(400);
    }
    expect((await read(await inputRoute.POST(post({ type: 'text', text: 'x' }), context(session.id)))).status).toBe(409);
  });

  it('take over: the person’s keys reach the page; given back, they are refused again', async () => {
    const session = await getOrchestrator().createSession({ persona: 'tester' });
    const browser = await getOrchestrator().browser.session(session.id, { allowedHosts: new Set([host]), allowPublic: false });
    const page = await browser.page();
    await page.goto(`http://${host}/`);
    expect((await read(await inputRoute.POST(post({ type: 'text', text: 'x' }), context(session.id)))).status).toBe(409);
    expect(await read(await browserRoute.POST(post({ action: 'take' }), context(session.id)))).toEqual({ status: 200, body: { browser: { open: true, taken_over: true, url: `http://${host}/`, tabs: 1 } } });
    expect((await read(await inputRoute.POST(post({ type: 'text', text: 'Ada' }), context(session.id)))).status).toBe(204);
    expect(await page.getByLabel('Name').inputValue()).toBe('Ada');
    expect((await read(await browserRoute.POST(post({ action: 'give' }), context(session.id)))).body).toMatchObject({ browser: { taken_over: false } });
    expect((await read(await inputRoute.POST(post({ type: 'key', key: 'Backspace' }), context(session.id)))).status).toBe(409);
    expect(await page.getByLabel('Name').inputValue()).toBe('Ada');
  }, 60_000);
});
