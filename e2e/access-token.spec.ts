// Bound to a non-loopback address the server demands its access token everywhere; and API keys
// never reach a browser whole nor any log, whatever the browser asks for or the backend says.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { io } from 'socket.io-client';
import { sendMalformedCorpus } from './support/malformed-corpus';
import { rawRequest, socketHandshake } from './support/raw-http';
import { spawnServer, type SpawnedServer } from './support/spawn-server';
import { startOAuthMcpServer } from '../test/support/oauth-mcp-server';
import { signInOnAuthorizationServer } from './support/oauth-sign-in';

const port = Number(process.env.E2E_TOKEN_PORT ?? 3212);
const base = `http://127.0.0.1:${port}`;
// Canaries made per run (never a key-shaped literal in the repository): if any 12-character
// stretch of them shows up where the test looks, a key leaked.
const envKey = `canary-env-${randomBytes(16).toString('hex')}`;
const savedKey = `canary-saved-${randomBytes(16).toString('hex')}`;
let server: SpawnedServer;

test.beforeAll(async () => {
  const root = 'test-results/e2e-token';
  fs.rmSync(root, { recursive: true, force: true });
  server = await spawnServer({ root, port, host: '0.0.0.0', env: { ANTHROPIC_API_KEY: envKey } });
});

test.afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

function startupToken(): string {
  const match = /\?token=([0-9a-f]+)/.exec(server.output());
  if (!match) throw new Error(`no token printed:\n${server.output()}`);
  return match[1]!;
}

test('every route and the socket need the token; the URL form sets a cookie and drops the token from the URL', async ({ browser }) => {
  const token = startupToken();
  expect(token.length * 4).toBeGreaterThanOrEqual(128);
  const host: [string, string] = ['Host', `127.0.0.1:${port}`];
  const origin: [string, string] = ['Origin', base];

  const wrongToken = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
  for (const url of ['/api/health', '/api/sessions', '/api/settings', '/api/personas', '/sw.js']) {
    const response = await rawRequest({ port, method: 'GET', path: url, headers: [host] });
    expect(response.status, url).toBe(401);
    expect(JSON.parse(response.body).error.code).toBe('unauthorized');
    const wrong = await rawRequest({ port, method: 'GET', path: url, headers: [host, ['Authorization', `Bearer ${wrongToken}`]] });
    expect(wrong.status, url).toBe(401);
  }
  // A page shows the sign-in page instead (issue 61): a passkey, or the printed link, gets a browser in.
  for (const url of ['/', '/sessions', '/settings', '/personas']) {
    for (const headers of [[host], [host, ['Authorization', `Bearer ${wrongToken}`]]] as [string, string][][]) {
      const response = await rawRequest({ port, method: 'GET', path: url, headers });
      expect(response.status, url).toBe(303);
      expect(/\r\nlocation: ([^\r]+)\r\n/i.exec(response.head)?.[1], url).toBe(url === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(url)}`);
    }
  }
  // The pages' own code is not private: a file that does not exist is simply not there.
  expect((await rawRequest({ port, method: 'GET', path: '/_next/static/x.js', headers: [host] })).status).toBe(404);
  expect((await rawRequest({ port, method: 'POST', path: '/api/personas', headers: [host, origin, ['Content-Type', 'application/json']], body: '{"name":"x","content":"x"}' })).status).toBe(401);
  expect((await rawRequest({ port, ...socketHandshake([host, origin]) })).status).not.toBe(101);
  // A wrong token in the URL sets nothing: the page sends the browser to sign in, without the token.
  const wrongLink = await rawRequest({ port, method: 'GET', path: '/?token=0123456789abcdef0123456789abcdef', headers: [host] });
  expect(wrongLink.status).toBe(303);
  expect(/\r\nlocation: ([^\r]+)\r\n/i.exec(wrongLink.head)?.[1]).toBe('/sign-in');
  expect(wrongLink.head).not.toMatch(/set-cookie/i);

  expect((await rawRequest({ port, method: 'GET', path: '/api/sessions', headers: [host, ['Authorization', `Bearer ${token}`]] })).status).toBe(200);
  expect((await rawRequest({ port, ...socketHandshake([host, origin, ['Cookie', `agentcsd_token=${token}`]]) })).status).toBe(101);

  const redirect = await rawRequest({ port, method: 'GET', path: `/settings?token=${token}`, headers: [host] });
  expect(redirect.status).toBe(303);
  expect(redirect.head).toMatch(/\r\nlocation: \/settings\r\n/i);
  expect(redirect.head).toMatch(/set-cookie: agentcsd_token=[0-9a-f]+; HttpOnly; SameSite=Strict; Path=\//i);

  // A browser following the printed link ends on a clean URL, signed in by the cookie.
  const context = await browser.newContext({ extraHTTPHeaders: {} });
  const page = await context.newPage();
  await page.goto(`${base}/?token=${token}`);
  expect(page.url()).toBe(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Sessions', level: 1 })).toBeVisible();
  await page.goto(`${base}/settings`);
  await expect(page).toHaveURL(`${base}/settings/models`);
  await expect(page.getByRole('heading', { name: 'Models and parameters', level: 1 })).toBeVisible();
  await context.close();

  // The web app manifest and its icons only are served without it (a browser fetches a manifest without cookies).
  for (const url of ['/manifest.webmanifest', '/icons/icon-192.png']) expect((await rawRequest({ port, method: 'GET', path: url, headers: [host] })).status, url).toBe(200);
  expect((await rawRequest({ port, method: 'GET', path: '/sw.js', headers: [host] })).status).toBe(401);

  // Printed once at start-up, and nowhere else since.
  expect(server.output().split(token).length - 1).toBe(1);
});

test('API keys: never whole in any answer, event or page, nor in the logs, even when the backend fails', async ({ browser }) => {
  const token = startupToken();
  const headers = { authorization: `Bearer ${token}`, origin: base, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${base}${url}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: response.status, text: await response.text() };
  };
  // Both layers on an endpoint that refuses connections, each with a saved key; the Subconscious
  // on the Anthropic API through the key from the environment.
  const dead = { backend: 'openai_compatible', model: 'dead', max_tokens: 64, endpoint: 'http://127.0.0.1:9/v1', api_key: savedKey };
  const params = { summary_every_n: 10, pacing: 'continuous', trigger_mode: 'tag', trigger_threshold: 200, spontaneous_cap: 3 };
  expect((await call('PUT', '/api/settings', { c_model: dead, s_model: { backend: 'anthropic', model: 'claude-haiku-4-5', max_tokens: 64, endpoint: 'http://127.0.0.1:9' }, params })).status).toBe(200);
  const created = JSON.parse((await call('POST', '/api/sessions', { persona: 'iris', name: 'Key canary' })).text).session;

  const events: string[] = [];
  const socket = io(base, { transports: ['websocket'], extraHeaders: { origin: base, cookie: `agentcsd_token=${token}` } });
  socket.onAny((type, payload) => events.push(`${type} ${JSON.stringify(payload)}`));
  await new Promise<void>((resolve) => socket.on('connect', () => socket.emit('join', { sessionId: created.id }, () => resolve())));
  expect((await call('POST', `/api/sessions/${created.id}/messages`, { text: 'hello through a dead line' })).status).toBe(202);
  await expect.poll(() => events.filter((event) => event.startsWith('error ')).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
  await call('POST', `/api/sessions/${created.id}/pause`);
  socket.close();

  const answers = await Promise.all(
    ['/api/settings', '/api/sessions', `/api/sessions/${created.id}`, `/api/sessions/${created.id}/history?layer=external`, `/api/sessions/${created.id}/context`, `/api/sessions/${created.id}/export?format=json`, `/api/sessions/${created.id}/export?format=md`].map(
      async (url) => `${url}: ${(await call('GET', url)).text}`,
    ),
  );
  const context = await browser.newContext({ extraHTTPHeaders: {} });
  await context.addCookies([{ name: 'agentcsd_token', value: token, url: base }]);
  const page = await context.newPage();
  const pages: string[] = [];
  for (const url of ['/settings', `/sessions/${created.id}`]) {
    await page.goto(`${base}${url}`);
    await page.waitForLoadState('networkidle');
    pages.push(await page.content());
  }
  await context.close();
  const files = listFiles(server.dataDir)
    .filter((file) => !/agentcsd\.db(-wal|-shm)?$/.test(file)) // the settings store: keys live there by design
    .map((file) => `${file}: ${fs.readFileSync(file, 'utf8')}`);

  const everything = [...answers, ...events, ...pages, ...files, server.output()].join('\n');
  expect(everything).toContain('api_key_hint'); // the answers were read
  expect(events.some((event) => /ECONNREFUSED|connect|refused/i.test(event))).toBe(true); // the failure reached the UI
  for (const key of [savedKey, envKey]) {
    // Neither whole nor any 12-character stretch of it (the hint shows the last 4).
    for (let start = 0; start + 12 <= key.length; start++) expect(everything).not.toContain(key.slice(start, start + 12));
  }
  const mode = fs.statSync(path.join(server.dataDir, 'agentcsd.db')).mode & 0o777;
  expect(mode & 0o077, `agentcsd.db mode ${mode.toString(8)}`).toBe(0);
});

test('malformed requests before the token are answered, never left hanging; nothing is thrown', async () => {
  const token = startupToken();
  const bearer: [string, string] = ['Authorization', `Bearer ${token}`];
  const anonymous = await sendMalformedCorpus(port, [], [bearer]);
  const signedIn = await sendMalformedCorpus(port, [bearer]);
  expect(anonymous.byStatus[400]).toBeGreaterThan(0);
  // Refused cleanly: no stack trace, no URIError in the server's output.
  expect(server.output()).not.toMatch(/URIError|TypeError: Invalid URL|\n\s+at .+\(.+:\d+:\d+\)/);
  test.info().annotations.push({ type: 'answered', description: `without the token ${JSON.stringify(anonymous.byStatus)}, with it ${JSON.stringify(signedIn.byStatus)}` });
});

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

test('an MCP sign-in ends connected with the token on (issue 41 §12): the callback comes back cross-site, without the cookie, and is let in by its state', async ({ browser }) => {
  test.setTimeout(90_000);
  const token = startupToken();
  // The app on localhost, the authorization server on 127.0.0.1: two sites, so the way back is a
  // cross-site navigation and the SameSite=Strict cookie stays behind.
  const app = `http://localhost:${port}`;
  const oauth = await startOAuthMcpServer();
  const context = await browser.newContext({ extraHTTPHeaders: {} });
  try {
    const page = await context.newPage();
    await page.goto(`${app}/?token=${token}`);
    const put = await page.request.put(`${app}/api/mcp-servers`, { headers: { origin: app }, data: { mcpServers: { linear: { type: 'http', url: oauth.mcpUrl } } } });
    expect(put.status()).toBe(200);
    await page.goto(`${app}/settings/mcp`);
    const section = page.getByRole('region', { name: 'MCP servers' });
    const item = section.getByRole('listitem', { name: 'MCP server linear' });
    await expect(item.getByTestId('mcp-state')).toHaveText('needs sign-in');
    await signInOnAuthorizationServer(page, item, oauth.issuer);
    await expect(section.getByRole('status')).toContainText('linear: signed in.');
    await expect(item.getByTestId('mcp-state')).toHaveText('connected');
    // The callback's exemption is its state, nothing else: without one it is a page like any other (sign in first).
    const stateless = await rawRequest({ port, method: 'GET', path: '/oauth/callback?code=x', headers: [['Host', `localhost:${port}`]] });
    expect(stateless.status).toBe(303);
    expect(stateless.head).toMatch(/\r\nlocation: \/sign-in\?next=/i);
    await page.request.put(`${app}/api/mcp-servers`, { headers: { origin: app }, data: { mcpServers: {} } });
  } finally {
    await context.close();
    await oauth.close();
  }
});

test('a restart keeps the token (issue 75 §5): the link printed before still works, and the browser that used it stays the owner', async ({ browser }) => {
  const before = startupToken();
  const context = await browser.newContext({ baseURL: base, extraHTTPHeaders: {} });
  const page = await context.newPage();
  await page.goto(`/?token=${before}`);
  await expect(page.getByRole('heading', { name: 'Sessions', exact: true, level: 1 })).toBeVisible();
  const cookie = (await context.cookies()).find((each) => each.name === 'agentcsd_token')!;
  expect(cookie.expires).toBeGreaterThan(Date.now() / 1000 + 29 * 24 * 3600); // kept 30 days, not for the browser's session
  server.child.kill('SIGTERM');
  await server.exited;
  server = await spawnServer({ root: 'test-results/e2e-token', port, host: '0.0.0.0', env: { ANTHROPIC_API_KEY: envKey } });
  expect(startupToken()).toBe(before);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sessions', exact: true, level: 1 })).toBeVisible();
  await context.close();
});
