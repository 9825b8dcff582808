// People on the web (issue 61) in Chromium with its virtual authenticator: the owner invites Alice;
// she makes a passkey from the link on her phone, signs out and in again, sees her conversation
// from Telegram and the shared memories, decides her own card, and finds Bob's session, the owner's
// session, Settings › Channels and the people list not there (page, REST and socket); a revoked
// passkey signs in no more; a forgotten person's browser is signed out at once.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { devices, expect, request as playwrightRequest, test, type APIRequestContext, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import { io } from 'socket.io-client';
import { startFakeTelegram, type FakeTelegram } from '../test/fakes/fake-telegram-server';
import { startPushService, type TestPushService } from '../test/support/push-service';
import { fakeModels, fakeParams } from './support/fake-models';
import { SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';
import { spawnServer, type SpawnedServer } from './support/spawn-server';

const port = Number(process.env.E2E_WEB_SIGN_IN_PORT ?? 3216);
// Passkeys are made for a name: the browser opens the app as localhost (a secure context).
const base = `http://localhost:${port}`;
const token = randomBytes(24).toString('hex');
let server: SpawnedServer;
let telegram: FakeTelegram;
let owner: APIRequestContext;
let push: TestPushService;

test.use({ actionTimeout: 20_000 });

test.beforeAll(async () => {
  const root = 'test-results/e2e-web-sign-in';
  fs.rmSync(root, { recursive: true, force: true });
  // Notifications go to the test's own push service (a self-hosted one, as the owner may list).
  push = await startPushService();
  server = await spawnServer({ root, port, env: { AGENTCSD_ACCESS_TOKEN: token, AGENTCSD_PUSH_SERVICES: push.origin } });
  owner = await playwrightRequest.newContext({ baseURL: base, extraHTTPHeaders: { origin: base, authorization: `Bearer ${token}` } });
  expect((await owner.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } })).status()).toBe(200);
  telegram = await startFakeTelegram();
});

test.afterAll(async () => {
  await owner?.dispose();
  await telegram?.close();
  await push?.close();
  server?.child.kill('SIGTERM');
  await server?.exited;
});

/** A Telegram user paired by the owner into their own session of iris; their session's id. */
async function pairedOnTelegram(channelId: string, user: { id: number; username: string }, role: 'trusted' | 'guest'): Promise<{ personId: string; sessionId: string }> {
  telegram.userWrites(user, `hello from ${user.username}`);
  let code = '';
  await expect.poll(async () => {
    const { pairings } = (await (await owner.get(`/api/channels/${channelId}/pairings`)).json()) as { pairings: { code: string; sender: string }[] };
    code = pairings.find((pairing) => pairing.sender.includes(user.username))?.code ?? '';
    return code;
  }, { timeout: 15_000 }).not.toBe('');
  expect((await owner.post(`/api/channels/${channelId}/pairings`, { data: { code, persona: 'iris', role } })).status()).toBe(201);
  telegram.userWrites(user, `I am ${user.username}, remember me`);
  await expect.poll(() => telegram.sent.filter((message) => message.chatId === String(user.id)).map((message) => message.text).join('\n'), { timeout: 20_000 }).toContain(`You said: I am ${user.username}`);
  const { people } = (await (await owner.get('/api/people')).json()) as { people: { id: string; name: string }[] };
  const personId = people.find((person) => person.name.includes(user.username))!.id;
  const { sessions } = (await (await owner.get(`/api/people/${personId}`)).json()) as { sessions: { id: string }[] };
  return { personId, sessionId: sessions[0]!.id };
}

/** A browser with a passkey-capable virtual authenticator (Chromium's, through CDP). */
async function withAuthenticator(browser: Browser, phone: boolean): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession }> {
  const context = await browser.newContext({ ...(phone ? devices['Pixel 7'] : { viewport: { width: 1280, height: 900 } }), baseURL: base, extraHTTPHeaders: {} });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { context, page, cdp };
}

async function invite(personId: string): Promise<string> {
  const response = await owner.post(`/api/people/${personId}/invites`, { data: {} });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { url: string }).url;
}

test('the owner invites Alice; she signs in with a passkey and reaches exactly what is hers', async ({ browser }) => {
  test.setTimeout(180_000);
  const channel = await owner.put('/api/channels', { data: { kind: 'telegram', name: 'Household bot', config: { token: telegram.token, api_root: telegram.apiRoot } } });
  expect(channel.status(), await channel.text()).toBeLessThan(300);
  const channelId = ((await channel.json()) as { id: string }).id;
  const alice = await pairedOnTelegram(channelId, { id: 9101, username: 'alice' }, 'trusted');
  const bob = await pairedOnTelegram(channelId, { id: 9102, username: 'bob' }, 'trusted');
  const ownersSession = ((await (await owner.post('/api/sessions', { data: { persona: 'iris', name: 'Owner only' } })).json()) as { session: { id: string } }).session.id;
  expect((await owner.post('/api/memories', { data: { persona: 'iris', content: 'The household wifi is called Tern', kind: 'fact', scope: 'long' } })).status()).toBeLessThan(300);

  // The owner's People page: an invite link, shown once, with its QR code.
  // Not the suite's default headers (an Origin of the main e2e server): this browser sends its own.
  const ownerContext = await browser.newContext({ baseURL: base, extraHTTPHeaders: {} });
  const ownerPage = await ownerContext.newPage();
  await ownerPage.goto(`/?token=${token}`);
  await ownerPage.goto('/people');
  await ownerPage.getByRole('listitem', { name: 'Person @alice' }).getByText('Conversations, keys, today and rights').click();
  await ownerPage.getByRole('button', { name: 'Invite @alice to the web pages' }).click();
  const link = ownerPage.getByLabel('Invite link for @alice');
  await expect(link).toHaveValue(new RegExp(`^${base}/join/[A-Za-z0-9_-]+$`));
  await saveScreenshot(ownerPage, 'people-invite');
  const aliceLink = await link.inputValue();

  // Alice, on her phone: the link makes her passkey and signs her in.
  const { context: aliceContext, page, cdp } = await withAuthenticator(browser, true);
  await page.goto(aliceLink);
  await expect(page.getByRole('heading', { name: 'You are invited' })).toBeVisible();
  // Told before she joins what the owner sees (issue 75 §5): the household's switch is off.
  await expect(page.getByTestId('owner-sees')).toContainText('The owner of this assistant can read your conversations here');
  await page.getByLabel('Name this device').fill('Alice’s phone');
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'Your sessions' })).toBeVisible();
  const cookie = (await aliceContext.cookies()).find((entry) => entry.name === 'agentcsd_session')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
  // Used once: the same link makes no second passkey.
  const reused = await page.request.post('/api/auth/passkey/register/options', { data: { invite: aliceLink.split('/join/')[1] }, headers: { origin: base } });
  expect(reused.status()).toBe(404);

  // The owner sees her on the web: her passkey and the browser signed in as her (issue 75 §6).
  await ownerPage.reload();
  await ownerPage.getByRole('listitem', { name: 'Person @alice' }).getByText('Conversations, keys, today and rights').click();
  const onTheWeb = ownerPage.getByRole('region', { name: '@alice on the web' });
  await expect(onTheWeb).toContainText('Passkey “Alice’s phone”');
  await expect(onTheWeb).toContainText('Signed in on 1 browser');
  await expect(onTheWeb.getByRole('button', { name: 'Sign @alice out everywhere' })).toBeVisible();

  // Her home: her conversation from Telegram, nobody else's.
  await expect(page.getByRole('link', { name: /alice/i }).first()).toBeVisible();
  await expect(page.getByText('Owner only')).toHaveCount(0);
  await saveScreenshot(page, 'web-home-phone');

  // Her phone is notified: a card of hers, while no page of hers is open, goes through the push
  // service (which checks the VAPID signature and decrypts it) and her service worker shows it.
  await aliceContext.grantPermissions(['notifications'], { origin: base });
  const phone = push.subscribe();
  expect((await page.request.post('/api/push/subscriptions', { data: phone, headers: { origin: base } })).status()).toBe(201);
  await page.goto('/settings/devices');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  telegram.userWrites({ id: 9101, username: 'alice' }, 'Please create a file and run a command [[tools]]');
  await expect.poll(() => push.received.filter((message) => message.subscription === phone.endpoint).length, { timeout: 20_000 }).toBeGreaterThan(0);
  const pushed = push.received.find((message) => message.subscription === phone.endpoint)!;
  expect(JSON.parse(pushed.payload)).toMatchObject({ url: `/sessions/${alice.sessionId}` });
  expect(push.refused).toEqual([]);
  const registrationId = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const found = registrations.find((registration) => registration.scopeURL === `${base}/` && !registration.isDeleted);
      if (found) resolve(found.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const id = await registrationId;
  const shown = () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((note) => `${note.title} — ${note.body}`));
  // Delivered again while nothing shows: the worker may still be starting when the first arrives
  // (the clean-clone run once saw none in 10 s); one notification tag, so a repeat replaces it.
  await expect
    .poll(
      async () => {
        if ((await shown()).length === 0) await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId: id, data: pushed.payload });
        return shown();
      },
      { timeout: 20_000, intervals: [500, 1_000, 2_000] },
    )
    .toContainEqual(expect.stringMatching(/waits for your decision — In “iris · @alice/));

  // Signed out, the pages send her to sign in; the passkey signs her in again.
  await page.goto('/settings');
  await expect(page).toHaveURL(`${base}/settings/devices`);
  await expect(page.getByText('Alice’s phone')).toBeVisible();
  await page.getByRole('button', { name: 'Sign out' }).last().click();
  await expect(page).toHaveURL(`${base}/sign-in`);
  await page.goto(`/sessions/${alice.sessionId}`);
  await expect(page).toHaveURL(`${base}/sign-in?next=${encodeURIComponent(`/sessions/${alice.sessionId}`)}`);
  await saveScreenshot(page, 'sign-in');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page).toHaveURL(`${base}/sessions/${alice.sessionId}`);

  // Her session live, with a card she decides herself.
  await page.setViewportSize({ width: 1280, height: 900 });
  const session = new SessionPage(page);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await expect(session.chat.getByText('I am alice, remember me', { exact: true })).toBeVisible();
  const bash = session.card('bash');
  await expect(bash).toContainText('waiting for your decision', { timeout: 20_000 });
  await bash.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(bash).toContainText('done', { timeout: 20_000 });
  const python = session.card('python');
  await python.getByRole('button', { name: 'Deny' }).click();
  await expect(python).toContainText('Denied', { timeout: 20_000 });

  // Memory: the shared memory is hers to read.
  await page.goto('/memory');
  await expect(page.getByText('The household wifi is called Tern')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Forget' })).toHaveCount(0); // hers to read; changing them is the owner's
  // Her spending and her own keys: pages that work for her, with no error from what is the owner's.
  for (const [path, heading, calls] of [['/spending', 'Spending', ['/api/spending', '/api/allowances']], ['/settings/access', 'Access', ['/api/keys', '/api/people']]] as const) {
    const answered = Promise.all(calls.map((call) => page.waitForResponse((response) => new URL(response.url()).pathname === call)));
    await page.goto(path);
    await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
    expect((await answered).map((response) => response.status())).toEqual([200, 404]);
    await expect(page.getByRole('alert').filter({ hasText: /\S/ })).toHaveCount(0);
  }

  // Not hers: a 404 on the page, REST and the socket, as if it did not exist.
  for (const path of [`/sessions/${bob.sessionId}`, `/sessions/${ownersSession}`, '/settings/channels', '/people', '/settings/models', '/personas']) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
  }
  for (const path of [`/api/sessions/${bob.sessionId}`, `/api/sessions/${ownersSession}/messages`, '/api/people', '/api/channels', '/api/settings', `/api/people/${alice.personId}`]) {
    expect((await page.request.get(path)).status(), path).toBe(404);
  }
  expect((await page.request.post(`/api/sessions/${bob.sessionId}/messages`, { data: { text: 'hi Bob' }, headers: { origin: base } })).status()).toBe(404);
  const { sessions } = (await (await page.request.get('/api/sessions')).json()) as { sessions: { id: string }[] };
  expect(sessions.map((entry) => entry.id)).toEqual([alice.sessionId]);
  const cookies = (await aliceContext.cookies()).map((entry) => `${entry.name}=${entry.value}`).join('; ');
  const socket = io(base, { transports: ['websocket'], extraHeaders: { cookie: cookies, origin: base } });
  try {
    expect(await socket.timeout(5000).emitWithAck('join', { sessionId: bob.sessionId })).toEqual({ ok: false, error: 'not_found' });
    expect(await socket.timeout(5000).emitWithAck('join', { sessionId: ownersSession })).toEqual({ ok: false, error: 'not_found' });
    expect(await socket.timeout(5000).emitWithAck('join', { sessionId: alice.sessionId })).toMatchObject({ ok: true });
  } finally {
    socket.close();
  }

  // Words that stay hers (§6): with the setting on, the owner's page shows that her conversation
  // exists, what it costs and its cards — not its words, live or stored.
  expect((await owner.put('/api/people/privacy', { data: { words_stay_private: true } })).status()).toBe(200);
  await ownerPage.goto(`/sessions/${alice.sessionId}`);
  await expect(ownerPage.getByTestId('words-private')).toContainText('What is said here stays with @alice');
  // …and her home says so too.
  await page.goto('/');
  await expect(page.getByTestId('owner-sees')).toContainText('Your words stay yours');
  await expect(ownerPage.getByText('I am alice, remember me', { exact: true })).toHaveCount(0);
  await saveScreenshot(ownerPage, 'words-private');
  const ownerSocket = io(base, { transports: ['websocket'], extraHeaders: { authorization: `Bearer ${token}`, origin: base } });
  const heard: string[] = [];
  ownerSocket.onAny((type: string, payload: unknown) => heard.push(`${type} ${JSON.stringify(payload)}`));
  try {
    expect(await ownerSocket.timeout(5000).emitWithAck('join', { sessionId: alice.sessionId })).toMatchObject({ ok: true });
    telegram.userWrites({ id: 9101, username: 'alice' }, 'WORDS-CANARY-0042 stays mine');
    await expect.poll(() => telegram.sent.filter((message) => message.chatId === '9101').map((message) => message.text).join('\n'), { timeout: 20_000 }).toContain('You said: WORDS-CANARY-0042');
    await expect.poll(() => heard.filter((line) => line.startsWith('usage ')).length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(heard.join('\n')).not.toContain('WORDS-CANARY-0042');
  } finally {
    ownerSocket.close();
    await owner.put('/api/people/privacy', { data: { words_stay_private: false } });
  }

  // Bob signs in too; forgotten by the owner, his browser is signed out at once.
  const { context: bobContext, page: bobPage } = await withAuthenticator(browser, false);
  await bobPage.goto(await invite(bob.personId));
  await bobPage.getByRole('button', { name: 'Create a passkey' }).click();
  await expect(bobPage.getByRole('heading', { name: 'Your sessions' })).toBeVisible();
  expect((await bobPage.request.get(`/api/sessions/${alice.sessionId}`)).status()).toBe(404);
  expect((await owner.delete(`/api/people/${bob.personId}`)).status()).toBe(204);
  expect((await bobPage.request.get('/api/auth/me')).status()).toBe(401);
  await bobPage.goto('/');
  await expect(bobPage).toHaveURL(`${base}/sign-in`);
  await bobContext.close();

  // Alice revokes her passkey: it signs her out and signs in no more.
  await page.goto('/settings/devices');
  await page.getByRole('button', { name: 'Revoke Alice’s phone' }).click();
  await page.goto('/');
  await expect(page).toHaveURL(`${base}/sign-in`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'This passkey is not known here' })).toBeVisible();
  await aliceContext.close();
  await ownerContext.close();
});
