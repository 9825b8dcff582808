// Settings › Channels in Chromium (issue 28): a Telegram bot added from the form (pointed at the
// fake Bot API this test runs), a stranger's pairing code shown and approved from the page, and
// the session page's notification flow — permission asked on a click, a system notification and
// a count on the tab's title for spontaneous speech while the tab is hidden.
import { expect, test } from '@playwright/test';
import { startFakeTelegram, type FakeTelegram } from '../test/fakes/fake-telegram-server';
import { saveScreenshot } from './support/screenshots';

let telegram: FakeTelegram;

test.beforeAll(async () => {
  telegram = await startFakeTelegram();
});
test.afterAll(async ({ request }) => {
  // Leave no channel polling for the specs after this one.
  const { channels } = (await (await request.get('/api/channels')).json()) as { channels: { id: string }[] };
  for (const channel of channels) await request.delete(`/api/channels/${channel.id}`);
  await telegram.close();
});

test('add a Telegram bot, approve a stranger from the page, talk to the session from the chat', async ({ page, request }) => {
  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'Reached by phone' } });
  expect(created.status(), await created.text()).toBe(201);
  const { session } = (await created.json()) as { session: { id: string; name: string } };

  await page.goto('/settings/channels');
  const section = page.getByRole('region', { name: 'Channels' });
  await section.getByRole('button', { name: 'Add a channel' }).click();
  await section.getByLabel('Name').fill('My phone');
  await section.getByLabel(/Bot token/).fill(telegram.token);
  await section.getByLabel('Bot API server').fill(telegram.apiRoot);
  await section.getByRole('button', { name: 'Add channel' }).click();
  await expect(section.getByTestId('channel-state')).toHaveText(/connected @agentcsd_test_bot/, { timeout: 15_000 });
  await expect(section).not.toContainText(telegram.token);

  await section.getByRole('button', { name: 'Test' }).click();
  await expect(section.getByRole('status')).toContainText('My phone works: @agentcsd_test_bot');

  // A stranger writes: one code comes back, and it shows on the page to approve.
  telegram.userWrites({ id: 3131, username: 'carla' }, 'hi, it is Carla');
  await expect.poll(() => telegram.sent.filter((message) => message.chatId === '3131').length, { timeout: 10_000 }).toBe(1);
  const code = /Pairing code: ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(telegram.sent[0]!.text)![1]!;
  const pairing = section.getByTestId('pairing');
  await expect(pairing).toContainText(code, { timeout: 10_000 });
  await expect(pairing).toContainText('@carla');
  // Putting her into an existing session is the explicit step: it names who is in it and asks.
  await pairing.getByRole('button', { name: 'Share an existing conversation instead…' }).click();
  await pairing.getByLabel('Session').selectOption({ label: `${session.name} — with you (the owner)` });
  await expect(pairing.getByTestId('pairing-share-people')).toContainText('Already in it: you (the owner). @carla will read everything said there');
  await expect(pairing.getByRole('button', { name: `Approve ${code}` })).toBeDisabled();
  await pairing.getByLabel(`Share “${session.name}” with @carla`).check();
  await saveScreenshot(page, 'settings-channels');
  await pairing.getByRole('button', { name: `Approve ${code}` }).click();
  await expect(section.getByRole('status')).toContainText(`@carla paired into “${session.name}”.`);
  await expect(section.getByTestId('pairing')).toHaveCount(0);

  // Carla talks to the session; the answer comes back to her chat and shows on the session page.
  await expect.poll(() => telegram.sent.at(-1)?.text ?? '', { timeout: 10_000 }).toMatch(/^Paired/);
  telegram.userWrites({ id: 3131, username: 'carla' }, 'Hello from my phone');
  await expect.poll(() => telegram.sent.at(-1)?.text ?? '', { timeout: 20_000 }).toContain('You said: Hello from my phone');
  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByText('Hello from my phone').first()).toBeVisible();
});

test('a hidden tab notifies spontaneous speech once permission was given on a click', async ({ page, context, request }) => {
  await context.grantPermissions(['notifications']);
  // Instruments the page: the tab can be made hidden, and notifications shown are recorded.
  await page.addInitScript(() => {
    const state = window as unknown as { __hidden: boolean; __notices: { title: string; body: string }[] };
    state.__hidden = false;
    state.__notices = [];
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (state.__hidden ? 'hidden' : 'visible') });
    const Real = window.Notification;
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        state.__notices.push({ title, body: options?.body ?? '' });
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
    Recorded.requestPermission = Real.requestPermission.bind(Real);
    window.Notification = Recorded as unknown as typeof Notification;
  });
  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'Notifier' } });
  const { session } = (await created.json()) as { session: { id: string } };
  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByText('notifications on')).toBeVisible(); // granted: no prompt, no button
  await page.evaluate(() => {
    (window as unknown as { __hidden: boolean }).__hidden = true;
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const sent = await request.post(`/api/sessions/${session.id}/messages`, { data: { text: 'Think it over and tell me later [[speak]]' } });
  expect(sent.status()).toBe(202);
  await expect.poll(() => page.evaluate(() => (window as unknown as { __notices: { title: string }[] }).__notices.map((notice) => notice.title)), { timeout: 30_000 }).toContain('Notifier says');
  await expect(page).toHaveTitle(/^\(\d+\) /);
  await page.evaluate(() => {
    (window as unknown as { __hidden: boolean }).__hidden = false;
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect(page).not.toHaveTitle(/^\(\d+\) /);
});

test('without permission the page offers it on a click, never on load', async ({ page, request }) => {
  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'Asks first' } });
  const { session } = (await created.json()) as { session: { id: string } };
  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByRole('button', { name: 'Notify me' })).toBeVisible();
  expect(await page.evaluate(() => Notification.permission)).toBe('default');
});
