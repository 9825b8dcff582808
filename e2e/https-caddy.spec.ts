// HTTPS for phones (issue 61 §4): the app behind a real Caddy with its internal CA on loopback and
// AGENTCSD_PUBLIC_URL set. An invite's link is the public address; a passkey is made and signs in
// over HTTPS; the cookies are Secure; a request naming another Host is refused by the app.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { startCaddy, type TestCaddy } from '../test/support/caddy';
import { rawRequest } from './support/raw-http';
import { spawnServer, type SpawnedServer } from './support/spawn-server';

const appPort = Number(process.env.E2E_HTTPS_APP_PORT ?? 3217);
const proxyPort = Number(process.env.E2E_HTTPS_PROXY_PORT ?? 3218);
// `*.localhost` is loopback to Chromium, and a name a passkey can belong to.
const publicUrl = `https://agent.localhost:${proxyPort}`;
const token = randomBytes(24).toString('hex');
let server: SpawnedServer;
let caddy: TestCaddy;

test.use({ actionTimeout: 20_000 });

test.beforeAll(async () => {
  const root = 'test-results/e2e-https';
  fs.rmSync(root, { recursive: true, force: true });
  server = await spawnServer({ root, port: appPort, env: { AGENTCSD_PUBLIC_URL: publicUrl, AGENTCSD_ACCESS_TOKEN: token } });
  caddy = await startCaddy({ name: 'agent.localhost', port: proxyPort, upstream: appPort });
});

test.afterAll(async () => {
  await caddy?.stop();
  server?.child.kill('SIGTERM');
  await server?.exited;
});

test('behind Caddy: an invite made over HTTPS signs a phone in with a passkey; Secure cookies; another Host refused', async ({ browser }) => {
  test.setTimeout(120_000);
  // The owner, over HTTPS through the proxy with the token the app printed for its public address.
  expect(server.output()).toContain(`served at ${publicUrl}: open ${publicUrl}/?token=`);
  // Node does not resolve `*.localhost`; Chromium does: the owner's calls go from a page holding the token's cookie.
  const ownerContext = await browser.newContext({ ignoreHTTPSErrors: true, extraHTTPHeaders: {} });
  const ownerPage = await ownerContext.newPage();
  await ownerPage.goto(`${publicUrl}/?token=${token}`);
  expect(ownerPage.url()).toBe(`${publicUrl}/`);
  const tokenCookie = (await ownerContext.cookies()).find((entry) => entry.name === 'agentcsd_token');
  expect(tokenCookie).toMatchObject({ secure: true, httpOnly: true });
  const url = await ownerPage.evaluate(async () => {
    const post = (path: string, body: unknown) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((response) => response.json());
    const { person } = (await post('/api/people', { name: 'Carol', role: 'trusted' })) as { person: { id: string } };
    return ((await post(`/api/people/${person.id}/invites`, {})) as { url: string }).url;
  });
  expect(url).toMatch(new RegExp(`^${publicUrl}/join/[A-Za-z0-9_-]+$`));
  await ownerContext.close();

  const context = await browser.newContext({ baseURL: publicUrl, ignoreHTTPSErrors: true, extraHTTPHeaders: {}, viewport: { width: 420, height: 860 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
  await page.goto(url);
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'Your sessions' })).toBeVisible();
  expect(page.url()).toBe(`${publicUrl}/`);
  const cookie = (await context.cookies()).find((entry) => entry.name === 'agentcsd_session');
  expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', domain: 'agent.localhost' });

  // Signed out and in again, over HTTPS.
  await page.goto('/settings/devices');
  await page.getByRole('button', { name: 'Sign out' }).last().click();
  await expect(page).toHaveURL(`${publicUrl}/sign-in`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'Your sessions' })).toBeVisible();
  await context.close();

  // The app itself: its public name is allowed, another is refused (DNS rebinding), whatever the proxy lets by.
  const direct = (host: string) => rawRequest({ port: appPort, method: 'GET', path: '/api/health', headers: [['Host', host], ['Authorization', `Bearer ${token}`]] });
  expect((await direct(`agent.localhost:${proxyPort}`)).status).toBe(200);
  expect((await direct(`evil.localhost:${proxyPort}`)).status).toBe(421);
  expect((await direct(`agent.localhost:${proxyPort + 1}`)).status).toBe(421);
});
