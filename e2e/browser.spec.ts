// The agent's browser as a person sees it (issue 45 §5), in Chromium against the built app: the
// agent opens a sign-in page on a loopback site the persona's graph allows; the session page shows
// it live; the person takes over, types their name into the page and signs in, gives it back; the
// agent reads the account page, signed in.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';
import { SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('the live view shows the agent’s page; take over signs in; give back and the agent reads the account', async ({ page, request }) => {
  test.setTimeout(120_000);
  const site = http.createServer((incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://site');
    const html = (body: string, headers: Record<string, string> = {}) => response.writeHead(headers.location ? 302 : 200, { 'content-type': 'text/html', ...headers }).end(body);
    if (url.pathname === '/signin' && url.searchParams.get('user')) return html('', { location: '/account', 'set-cookie': `user=${encodeURIComponent(url.searchParams.get('user')!)}; Path=/; Max-Age=3600` });
    if (url.pathname === '/signin')
      return html('<title>Sign in</title><body style="margin:0;font:20px sans-serif"><h1 style="margin:16px">Sign in to the test site</h1><form style="margin:16px"><input name="user" aria-label="User" style="width:600px;height:60px;font-size:28px"></form></body>');
    const user = /user=([^;]+)/.exec(incoming.headers.cookie ?? '')?.[1];
    return html(`<title>Account</title><h1>${user ? `Signed in as ${decodeURIComponent(user)}` : 'Not signed in'}</h1>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  try {
    const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
    expect(reset.status(), await reset.text()).toBe(200);
    const created = await request.post('/api/personas', { data: { name: 'browsy', content: '# Browsy\nReads pages for the user.\n' } });
    expect([201, 409]).toContain(created.status());
    const graph = (await (await request.get('/api/personas/browsy/capabilities')).json()).graph;
    graph.nodes.push({ id: 'web', type: 'tool.browser', config: { allowed_hosts: [new URL(origin).host] }, position: { x: 600, y: 600 } });
    graph.edges.push({ id: 'e_web', source: 'core', target: 'web' });
    const saved = await request.put('/api/personas/browsy/capabilities', { data: { graph } });
    expect(saved.status(), await saved.text()).toBe(200);
    const made = await request.post('/api/sessions', { data: { name: 'Browsing', persona: 'browsy', models: fakeModels() } });
    expect(made.status(), await made.text()).toBe(201);
    const sessionId = (await made.json()).session.id as string;

    await page.goto(`/sessions/${sessionId}`);
    const session = new SessionPage(page);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    await session.send(`Open the sign-in page [[browse ${origin}/signin]]`);
    await expect(session.messages.filter({ hasText: 'Here is what the tools said: Sign in to the test site' })).toBeVisible({ timeout: 60_000 });

    // The live view: the agent's page, as it is now.
    const panel = page.locator('details').filter({ has: page.getByText(/^Browser/) });
    await panel.locator('summary').click();
    const view = panel.getByRole('img', { name: `The page at ${origin}/signin` });
    await expect(view).toBeVisible({ timeout: 30_000 });
    await expect(panel).toContainText('The agent has the browser.');

    // Take over: click into the field, type, press Enter; the page signs in.
    await panel.getByRole('button', { name: 'Take over' }).click();
    await expect(panel).toContainText('You have the browser: the agent waits.');
    const box = (await view.boundingBox())!;
    await page.mouse.click(box.x + (300 * box.width) / 1280, box.y + (110 * box.height) / 800);
    await panel.getByRole('application', { name: "The agent's browser" }).focus();
    await page.keyboard.type('ada');
    await page.keyboard.press('Enter');
    await expect(panel.getByRole('img', { name: `The page at ${origin}/account` })).toBeVisible({ timeout: 30_000 });
    await saveScreenshot(page, 'session-browser');
    await panel.getByRole('button', { name: 'Give back' }).click();
    await expect(panel).toContainText('The agent has the browser.');

    // The agent reads the account page: signed in as the person left it.
    await session.send(`And now the account [[browse ${origin}/account]]`);
    await expect(session.messages.filter({ hasText: 'Here is what the tools said: Signed in as ada' })).toBeVisible({ timeout: 60_000 });
  } finally {
    site.close();
  }
});
