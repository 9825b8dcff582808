// Signing in on the test authorization server's own pages (test/support/oauth-mcp-server.ts), as a
// person does after pressing Sign in in Settings › MCP servers; back in Settings when it returns.
import type { Locator, Page } from '@playwright/test';

export async function signInOnAuthorizationServer(page: Page, item: Locator, issuer: string): Promise<void> {
  await item.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.origin === issuer, { waitUntil: 'commit' });
  await page.locator('input[name="login"]').fill('ada');
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(/\/settings/);
}
