// The localhost guard on the real server, on every surface (page, API read, API write, Socket.IO
// handshake): crafted Host values (DNS rebinding), foreign and missing Origins (CSRF, socket
// hijacking) sent raw over TCP, then the same attacks from real Chromium pages.
import { expect, test, chromium } from '@playwright/test';
import { allowedOrigins, hostileHosts, hostileOrigins } from '../test/fixtures/hostile-headers';
import { folderFingerprint } from '../test/support/temp-app-dirs';
import { rawRequest, socketHandshake, type RawResponse } from './support/raw-http';

const port = Number(process.env.E2E_PORT ?? 3210);
const ours = `http://127.0.0.1:${port}`;
const personasDir = 'test-results/e2e-run/personas';
const json: [string, string] = ['Content-Type', 'application/json'];

function personaBody(name: string): string {
  return JSON.stringify({ name, content: `# ${name}\nplanted` });
}

type Surface = { name: string; send: (headers: [string, string][]) => Promise<RawResponse>; ok: number };

const surfaces: Surface[] = [
  { name: 'page', ok: 200, send: (headers) => rawRequest({ port, method: 'GET', path: '/', headers }) },
  { name: 'api read', ok: 200, send: (headers) => rawRequest({ port, method: 'GET', path: '/api/sessions', headers }) },
  {
    name: 'api write',
    ok: 201,
    send: (headers) => rawRequest({ port, method: 'POST', path: '/api/personas', headers: [...headers, json, ['Origin', ours]], body: personaBody('hostprobe') }),
  },
  { name: 'socket handshake', ok: 101, send: (headers) => rawRequest({ port, ...socketHandshake([...headers, ['Origin', ours]]) }) },
];

async function deletePersona(name: string): Promise<void> {
  const response = await rawRequest({ port, method: 'DELETE', path: `/api/personas/${name}`, headers: [['Host', `127.0.0.1:${port}`], ['Origin', ours]] });
  expect(response.status).toBe(204);
}

test('every crafted Host is refused on every surface; the allowed one works', async () => {
  // Control: the same requests with our Host succeed, so a refusal below is the guard's doing.
  for (const surface of surfaces) {
    expect((await surface.send([['Host', `127.0.0.1:${port}`]])).status, surface.name).toBe(surface.ok);
  }
  await deletePersona('hostprobe');

  const before = folderFingerprint(personasDir);
  const hosts = hostileHosts(port);
  expect(hosts.length).toBeGreaterThanOrEqual(40);
  let refused = 0;
  for (const host of hosts) {
    for (const surface of surfaces) {
      const response = await surface.send([['Host', host]]);
      // 421 is the guard; 400 is Node's parser refusing a Host it cannot read at all.
      expect([400, 421], `${surface.name} with Host ${JSON.stringify(host)}: ${response.head}`).toContain(response.status);
      refused++;
    }
  }
  // A request without any Host header at all.
  for (const surface of surfaces) expect([400, 421]).toContain((await surface.send([])).status);
  expect(folderFingerprint(personasDir)).toBe(before);
  test.info().annotations.push({ type: 'refused', description: `${refused} Host cases on ${surfaces.length} surfaces` });
});

test('mutations and socket handshakes need our Origin: foreign, null and missing ones change nothing', async ({ request }) => {
  const host: [string, string] = ['Host', `127.0.0.1:${port}`];
  const session = (await (await request.post('/api/sessions', { data: { persona: 'iris', name: 'CSRF target' } })).json()).session;
  await request.post(`/api/sessions/${session.id}/pause`);
  const settingsBefore = await (await request.get('/api/settings')).text();
  const personasBefore = folderFingerprint(personasDir);

  const attacks: { name: string; send: (origin: [string, string][]) => Promise<RawResponse> }[] = [
    { name: 'JSON post', send: (origin) => rawRequest({ port, method: 'POST', path: '/api/personas', headers: [host, json, ...origin], body: personaBody('csrf') }) },
    {
      name: 'text/plain form post',
      send: (origin) =>
        rawRequest({ port, method: 'POST', path: '/api/personas', headers: [host, ['Content-Type', 'text/plain'], ...origin], body: personaBody('csrf') }),
    },
    {
      name: 'urlencoded form post',
      send: (origin) =>
        rawRequest({ port, method: 'POST', path: `/api/sessions/${session.id}/resume`, headers: [host, ['Content-Type', 'application/x-www-form-urlencoded'], ...origin], body: 'a=1' }),
    },
    { name: 'settings put', send: (origin) => rawRequest({ port, method: 'PUT', path: '/api/settings', headers: [host, json, ...origin], body: settingsBefore }) },
    { name: 'delete', send: (origin) => rawRequest({ port, method: 'DELETE', path: '/api/personas/iris', headers: [host, ...origin] }) },
    { name: 'patch', send: (origin) => rawRequest({ port, method: 'PATCH', path: `/api/sessions/${session.id}`, headers: [host, json, ...origin], body: '{"name":"pwned"}' }) },
    { name: 'socket handshake', send: (origin) => rawRequest({ port, ...socketHandshake([host, ...origin]) }) },
  ];

  const origins: [string, string][][] = [[], ...hostileOrigins(port).map((origin): [string, string][] => [['Origin', origin]])];
  let refused = 0;
  for (const origin of origins) {
    for (const attack of attacks) {
      const response = await attack.send(origin);
      expect(response.status, `${attack.name} with ${JSON.stringify(origin)}: ${response.head}`).toBeGreaterThanOrEqual(400);
      if (attack.name !== 'socket handshake') expect(JSON.parse(response.body).error.code).toMatch(/^(forbidden_origin|origin_required)$/);
      refused++;
    }
  }
  expect(refused).toBeGreaterThanOrEqual(60);
  expect(await (await request.get('/api/settings')).text()).toBe(settingsBefore);
  expect(folderFingerprint(personasDir)).toBe(personasBefore);
  const after = (await (await request.get(`/api/sessions/${session.id}`)).json()).session;
  expect(after).toMatchObject({ name: 'CSRF target', status: 'paused' });

  // Control: our own Origin opens the socket and reaches the routes.
  for (const origin of allowedOrigins(port).filter((value) => value.includes('127.0.0.1'))) {
    expect((await rawRequest({ port, ...socketHandshake([host, ['Origin', origin]]) })).status).toBe(101);
    expect((await rawRequest({ port, method: 'PATCH', path: `/api/sessions/${session.id}`, headers: [host, json, ['Origin', origin]], body: '{"name":"renamed"}' })).status).toBe(200);
  }
  test.info().annotations.push({ type: 'refused', description: `${refused} Origin cases` });
});

test('a page on another origin cannot post, submit a form or open the socket; our own page can', async ({ browser, request }) => {
  // A foreign loopback origin (another port), so the browser's own private-network rules do not
  // stop the requests before they reach the server: what refuses them is ours.
  const context = await browser.newContext({ extraHTTPHeaders: {} });
  const page = await context.newPage();
  const attacker = `http://localhost:${port + 5}`;
  await page.route(`${attacker}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>attacker</title>' }));
  const personasBefore = folderFingerprint(personasDir);
  const sessionsBefore = (await (await request.get('/api/sessions')).json()).total;

  const attack = async () =>
    page.evaluate(async (target) => {
      const body = JSON.stringify({ name: 'csrfbrowser', content: 'planted' });
      await fetch(`${target}/api/personas`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }).catch(() => {});
      await fetch(`${target}/api/sessions`, { method: 'POST', mode: 'no-cors', body: '{"persona":"iris"}' }).catch(() => {});
      const socketOpened = await new Promise<boolean>((resolve) => {
        const socket = new WebSocket(`${target.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`);
        socket.onopen = () => (socket.close(), resolve(true));
        socket.onerror = () => resolve(false);
      });
      return { socketOpened };
    }, ours);

  await page.goto(`${attacker}/`);
  expect(await attack()).toEqual({ socketOpened: false });
  // A classic form post (text/plain smuggling JSON) navigates to the answer: the guard's refusal.
  await page.setContent(
    `<form method="post" action="${ours}/api/personas" enctype="text/plain"><input name='{"name":"csrfform","content":"x","pad":"' value='"}'></form>`,
  );
  await Promise.all([page.waitForURL(`${ours}/api/personas`), page.locator('form').evaluate((form: HTMLFormElement) => form.submit())]);
  await expect(page.locator('body')).toContainText('forbidden_origin');
  expect(folderFingerprint(personasDir)).toBe(personasBefore);
  expect((await (await request.get('/api/sessions')).json()).total).toBe(sessionsBefore);

  // Control: the same script from our own origin opens the socket (and its text/plain post is
  // refused by the route as not JSON, past the guard).
  await page.goto(`${ours}/`);
  expect(await attack()).toEqual({ socketOpened: true });
  expect(folderFingerprint(personasDir)).toBe(personasBefore);
  await context.close();
});

test('DNS rebinding in a real browser: a name that resolves to 127.0.0.1 gets the refusal, not the app', async () => {
  const rebinding = await chromium.launch({
    executablePath: test.info().project.use.launchOptions?.executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP rebind.test 127.0.0.1'],
  });
  const page = await rebinding.newPage();
  const response = await page.goto(`http://rebind.test:${port}/`);
  expect(response?.status()).toBe(421);
  await expect(page.locator('body')).toContainText('forbidden_host');
  // Chromium turns a 421 answer to fetch into a network error; either way no data comes back.
  const fromScript = await page.evaluate(() => fetch('/api/sessions').then((answer) => answer.status, () => 'refused'));
  expect([421, 'refused']).toContain(fromScript);
  await rebinding.close();
});
