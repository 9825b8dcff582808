import { expect, test } from '@playwright/test';
import { PersonaEditorPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('create a persona, edit it with a live preview, save, and find it after a reload', async ({ page }) => {
  await page.goto('/personas');
  const list = page.getByRole('list', { name: 'Personas' });
  for (const shipped of ['iris', 'sage', 'wren']) await expect(list.getByRole('link', { name: shipped })).toBeVisible();
  await saveScreenshot(page, 'personas');

  await page.getByLabel('New persona name').fill('night-owl');
  await page.getByRole('button', { name: 'Create persona' }).click();
  await expect(page).toHaveURL(/\/personas\/night-owl$/);

  const editor = new PersonaEditorPage(page);
  await expect(editor.editor).toHaveValue(/# night-owl/);
  await editor.editor.fill('# Night Owl\n\nAwake when **everyone** sleeps.\n\n<script>alert(1)</script>');
  await expect(editor.preview.getByRole('heading', { name: 'Night Owl' })).toBeVisible();
  await expect(editor.preview.locator('strong')).toHaveText('everyone');
  await expect(editor.preview.locator('script')).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Unsaved changes' })).toBeVisible();
  await saveScreenshot(page, 'persona-editor');

  // Leaving with unsaved changes asks first.
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('link', { name: '← All personas' }).click();
  await expect(page).toHaveURL(/\/personas\/night-owl$/);

  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
  await page.reload();
  await expect(editor.editor).toHaveValue(/Awake when \*\*everyone\*\* sleeps/);

  // Delete after confirmation.
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete persona' }).click();
  await expect(page).toHaveURL(/\/personas$/);
  await expect(page.getByRole('list', { name: 'Personas' }).getByRole('link', { name: 'night-owl' })).toHaveCount(0);
});

test('a hostile persona name is refused with a clear message', async ({ page }) => {
  await page.goto('/personas');
  await page.getByLabel('New persona name').fill('../escape');
  await page.getByRole('button', { name: 'Create persona' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'persona name may contain only' })).toBeVisible();
  await page.getByLabel('New persona name').fill('iris');
  await page.getByRole('button', { name: 'Create persona' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'already exists' })).toBeVisible();
});
