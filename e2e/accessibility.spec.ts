// Accessibility (issue 50): axe-core over every page, on a desktop and on a phone, with no serious or
// critical violation; and the session page used with the keyboard alone — send a message, approve
// a card, switch layers.
import AxeBuilder from '@axe-core/playwright';
import { devices, expect, test, type Page } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';
import { SessionPage } from './support/pages';
import { deleteNewSessions, everyPage, newSession, settled } from './support/every-page';

const { defaultBrowserType: _webkit, ...iPhone13 } = devices['iPhone 13'];

test.afterEach(({ request }) => deleteNewSessions(request));

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(' | ')}`);
}

async function auditEveryPage(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const url of await everyPage(page)) {
    await page.goto(url);
    await settled(page);
    for (const violation of await seriousViolations(page)) found.push(`${url}: ${violation}`);
  }
  return found;
}

test.describe('axe on a desktop', () => {
  test('every page: no serious or critical violation', async ({ page }) => {
    test.setTimeout(180_000);
    expect(await auditEveryPage(page)).toEqual([]);
  });
});

test.describe('axe on a phone', () => {
  test.use(iPhone13);
  test('every page: no serious or critical violation', async ({ page }) => {
    test.setTimeout(180_000);
    expect(await auditEveryPage(page)).toEqual([]);
  });
});

test.describe('the keyboard alone', () => {
  test.use(iPhone13);

  /** Presses Tab until `target` has the focus (at most `limit` times): it can be reached without a pointer. */
  async function tabTo(page: Page, target: ReturnType<Page['locator']>, limit = 120): Promise<void> {
    for (let presses = 0; presses < limit; presses++) {
      if (await target.evaluate((element) => element === document.activeElement)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`not reached with ${limit} presses of Tab`);
  }

  test('the session page: send, approve a card, switch layers', async ({ page, request }) => {
    test.setTimeout(120_000);
    const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
    expect(reset.status(), await reset.text()).toBe(200);
    const id = await newSession(page, 'Keyboard');
    await page.goto(`/sessions/${id}`);
    const session = new SessionPage(page);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

    await tabTo(page, session.input);
    await page.keyboard.type('Please create a file and run a command [[tools]]');
    await page.keyboard.press('Enter');
    const bash = session.card('bash');
    await expect(bash).toContainText('waiting for your decision');

    await tabTo(page, bash.getByRole('button', { name: 'Approve', exact: true }));
    await page.keyboard.press('Enter');
    await expect(bash).toContainText('done', { timeout: 30_000 });

    const tabs = page.getByRole('tablist', { name: 'Layers' });
    await tabTo(page, tabs.getByRole('tab', { selected: true }));
    await page.keyboard.press('ArrowRight');
    await expect(tabs.getByRole('tab', { name: /Internal Dialog/ })).toHaveAttribute('aria-selected', 'true');
    await expect(tabs.getByRole('tab', { name: /Internal Dialog/ })).toBeFocused();
    await expect(session.internal).toBeVisible();
    await page.keyboard.press('End');
    await expect(session.subconscious).toBeVisible();
    await page.keyboard.press('Home');
    await expect(session.chat).toBeVisible();
  });
});
