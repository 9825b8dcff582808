import { expect, test } from '@playwright/test';
import { HomePage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('create a session, see its page and the list, rename it, delete it', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.createSession({ name: 'Morning talk', persona: 'iris' });

  // The new session opens on its own page with the three panels and the controls.
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Morning talk', level: 1 })).toBeVisible();
  for (const panel of ['External Dialog', 'Internal Dialog', 'Subconscious']) {
    await expect(page.getByRole('region', { name: panel })).toBeVisible();
  }
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
  await expect(page.getByText('paused', { exact: true })).toBeVisible();
  await saveScreenshot(page, 'session-page');

  await page.getByRole('link', { name: '← Sessions' }).click();
  await expect(home.row('Morning talk')).toBeVisible();
  await expect(home.row('Morning talk')).toContainText('iris');
  await expect(home.row('Morning talk')).toContainText('paused');

  // Search narrows the list.
  await home.createSession({ persona: 'sage' });
  await expect(page).toHaveURL(/\/sessions\//);
  await home.goto();
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('Morning');
  await expect(page.getByRole('link', { name: /^sage · / })).toHaveCount(0);
  await expect(home.row('Morning talk')).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');
  await expect(page.getByRole('link', { name: /^sage · / })).toBeVisible();
  await saveScreenshot(page, 'home');

  // Rename.
  await page.getByRole('button', { name: 'Rename Morning talk' }).click();
  await page.getByRole('textbox', { name: 'New name' }).fill('Evening talk');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(home.row('Evening talk')).toBeVisible();
  await page.reload();
  await expect(home.row('Evening talk')).toBeVisible();

  // Delete asks first; cancelling keeps the session.
  await page.getByRole('button', { name: 'Delete Evening talk' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this session?' });
  await expect(dialog).toBeVisible();
  await saveScreenshot(page, 'home-delete-confirmation');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(home.row('Evening talk')).toBeVisible();
  await page.getByRole('button', { name: 'Delete Evening talk' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete session' }).click();
  await expect(page.getByRole('link', { name: 'Evening talk' })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('link', { name: /^sage · / })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Evening talk' })).toHaveCount(0);
});

test('an unknown session says so', async ({ page }) => {
  await page.goto('/sessions/00000000-0000-4000-8000-000000000000');
  await expect(page.getByRole('alert').filter({ hasText: 'does not exist' })).toBeVisible();
});
