// Settings › Access in Chromium (issue 46 §1): a key made on the page, shown once, answers at the
// OpenAI-compatible door with the persona it was given; revoked, it is refused.
import { expect, test } from '@playwright/test';
import { saveScreenshot } from './support/screenshots';

test('make a key in Settings › Access, use it at /v1, revoke it', async ({ page, request }) => {
  await page.goto('/settings/access');
  const access = page.getByRole('region', { name: 'Access' });
  await access.getByLabel('Name').fill('e2e script');
  await access.getByRole('checkbox', { name: 'iris' }).check();
  await access.getByRole('button', { name: 'Create key' }).click();
  const shown = access.getByRole('status', { name: 'New key' });
  await expect(shown).toContainText('shown once');
  const secret = (await shown.locator('code').textContent())!.trim();
  expect(secret).toMatch(/^acsd_[0-9a-f]{16}_[\w-]{43}$/);
  await access.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'settings-access');

  const models = await request.get('/v1/models', { headers: { authorization: `Bearer ${secret}` } });
  expect(models.status(), await models.text()).toBe(200);
  expect((await models.json()).data.map((model: { id: string }) => model.id)).toEqual(['persona/iris']);

  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(shown).toHaveCount(0);
  const row = access.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'e2e script' });
  await expect(row).toContainText(secret.slice(-4));
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row.getByRole('button', { name: 'Revoke' })).toHaveCount(0);
  expect((await request.get('/v1/models', { headers: { authorization: `Bearer ${secret}` } })).status()).toBe(401);
});
