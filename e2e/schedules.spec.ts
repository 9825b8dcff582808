// The Schedules panel in Chromium against the production server (issue 29): a one-shot reminder
// made from the panel fires at its second and the mind answers it in the chat; a webhook made from
// the panel shows its secret once, and a delivery signed with it (from a script: no Origin, no
// cookie) wakes the mind with its payload; one signed with anything else is refused.
import { createHmac } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { saveScreenshot } from './support/screenshots';

/** A local time in UTC a few seconds from now, as the form takes it. */
function inSeconds(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

test('a reminder from the panel fires and is answered; a signed webhook wakes the mind', async ({ page, request, playwright }) => {
  test.setTimeout(120_000);
  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'Keeps appointments' } });
  const { session } = (await created.json()) as { session: { id: string } };
  await page.goto(`/sessions/${session.id}`);

  const panel = page.getByRole('region', { name: 'Schedules' });
  await panel.getByRole('button', { name: 'New schedule' }).click();
  const form = panel.getByRole('form', { name: 'New schedule' });
  await form.getByLabel('Time', { exact: true }).fill(inSeconds(6));
  await form.getByLabel('Time zone').fill('UTC');
  await form.getByRole('textbox', { name: 'Message' }).fill('Stretch your legs');
  await form.getByRole('button', { name: 'Add schedule' }).click();
  const row = panel.getByTestId('schedule');
  await expect(row).toContainText('Stretch your legs');
  await expect(row).toContainText('by you');
  await expect(row).toContainText('active');
  await expect(page.getByText('You said: ⏰ Scheduled "Stretch your legs"').first()).toBeVisible({ timeout: 30_000 });
  await expect(row).toContainText('message sent');
  await expect(row).toContainText('done');

  // Edited to a new time, the one-shot is active again and fires again.
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = row.getByRole('form', { name: 'Edit Stretch your legs' });
  await edit.getByLabel('Time', { exact: true }).fill(inSeconds(5));
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText('active');
  await expect(page.getByText('You said: ⏰ Scheduled "Stretch your legs"')).toHaveCount(2, { timeout: 30_000 });

  // A webhook: its secret once, then a signed delivery from outside the browser.
  page.once('dialog', (dialog) => void dialog.accept('build server'));
  await panel.getByRole('button', { name: 'New webhook' }).click();
  const secret = (await panel.getByTestId('hook-secret').textContent())!;
  const url = (await panel.getByRole('status').locator('code').first().textContent())!;
  await saveScreenshot(page, 'session-schedules');
  const outside = await playwright.request.newContext(); // no Origin, no cookie: another server
  const body = JSON.stringify({ build: 7, status: 'failed' });
  const forged = await outside.post(url, { headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', 'wrong').update(body).digest('hex')}` }, data: body });
  expect(forged.status()).toBe(401);
  const delivered = await outside.post(url, { headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`, 'x-github-delivery': 'e2e-1' }, data: body });
  expect(delivered.status(), await delivered.text()).toBe(202);
  await expect(page.getByText('Webhook "build server" received a delivery (e2e-1)').first()).toBeVisible({ timeout: 20_000 });
  await outside.dispose();
});
