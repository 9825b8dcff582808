import type { Page } from '@playwright/test';

/** Saves a full-page screenshot into docs/screenshots/ (committed: the docs show every page). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true, animations: 'disabled' });
}
