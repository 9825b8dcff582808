// A house people find their way in (issue 50), in Chromium: Settings as a section per page with a
// side navigation (a menu on a phone) and a warning before unsaved changes are lost; every page
// no wider than a phone's screen; the session page's layers as tabs with a dot for news; a card's
// "Settings › Channels" landing on that section; the manifest, icons and the shell's service
// worker (which never keeps an API answer).
import { devices, expect, test, type Page } from '@playwright/test';
import { settingsSections } from '../components/settings/settings-sections';
import { deleteNewSessions, everyPage, newSession, settled } from './support/every-page';
import { fakeModels, fakeParams } from './support/fake-models';
import { SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

// iPhone 13's screen, touch and user agent, in Chromium (its default browser would be WebKit).
const { defaultBrowserType: _webkit, ...iPhone13 } = devices['iPhone 13'];

test.afterEach(({ request }) => deleteNewSessions(request));

test.describe('on a desktop', () => {
  test('Settings: each section by its address and from the side navigation; /settings opens the first; an unknown one is not found', async ({ page }) => {
    await page.goto('/settings');
    await expect(page).toHaveURL(/\/settings\/models$/);
    const nav = page.getByRole('navigation', { name: 'Settings sections', exact: true });
    for (const section of settingsSections) {
      await nav.getByRole('link', { name: section.title, exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`/settings/${section.slug}$`));
      await expect(page.getByRole('heading', { level: 1, name: section.title })).toBeVisible();
      await expect(nav.getByRole('link', { name: section.title, exact: true })).toHaveAttribute('aria-current', 'page');
    }
    for (const section of settingsSections) {
      await page.goto(`/settings/${section.slug}`);
      await expect(page.getByRole('heading', { level: 1, name: section.title })).toBeVisible();
    }
    expect((await page.goto('/settings/nowhere'))?.status()).toBe(404);
    await page.goto('/settings/channels');
    await settled(page);
    await saveScreenshot(page, 'settings-sections');
  });

  test('unsaved changes warn before leaving, by the side navigation or the top bar; saved ones do not', async ({ page, request }) => {
    const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
    expect(reset.status(), await reset.text()).toBe(200);
    await page.goto('/settings/models');
    await page.getByLabel('Summary every N cycles').fill('9');
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('navigation', { name: 'Settings sections', exact: true }).getByRole('link', { name: 'Channels' }).click();
    await expect.poll(() => asked).toEqual(['You have unsaved changes here. Leave without saving them?']);
    await expect(page).toHaveURL(/\/settings\/models$/);
    await expect(page.getByLabel('Summary every N cycles')).toHaveValue('9');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Personas' }).click();
    await expect(page).toHaveURL(/\/personas$/);

    // Saved: no question.
    await page.goto('/settings/models');
    await page.getByLabel('Summary every N cycles').fill(String(fakeParams.summary_every_n));
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Settings saved' })).toBeVisible();
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('navigation', { name: 'Settings sections', exact: true }).getByRole('link', { name: 'Memory' }).click();
    await expect(page).toHaveURL(/\/settings\/memory$/);
    expect(asked).toHaveLength(1);
  });

  test('installable: the manifest and its icons are served and valid; the shell’s service worker keeps no API answer', async ({ page, request }) => {
    const answer = await request.get('/manifest.webmanifest');
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toContain('application/manifest+json');
    const manifest = (await answer.json()) as { name: string; start_url: string; display: string; icons: { src: string; sizes: string; type: string; purpose: string }[] };
    expect(manifest).toMatchObject({ name: 'AgentCSD', start_url: '/', display: 'standalone' });
    expect(manifest.icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(manifest.icons.some((icon) => icon.purpose === 'maskable')).toBe(true);
    for (const icon of manifest.icons) {
      const image = await request.get(icon.src);
      expect(image.status(), icon.src).toBe(200);
      expect(image.headers()['content-type']).toBe('image/png');
      const bytes = await image.body();
      // A PNG whose header says the size the manifest claims.
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(`${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`).toBe(icon.sizes);
    }

    await page.goto('/');
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#3730a3');
    expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL)).toMatch(/\/sw\.js$/);
    // Pages and API answers pass through; the shell is kept.
    await page.reload();
    await settled(page);
    await page.evaluate(() => fetch('/api/sessions').then((response) => response.json()));
    const kept = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
      return urls;
    });
    expect(kept.some((url) => url.startsWith('/_next/static/'))).toBe(true);
    expect(kept.filter((url) => !url.startsWith('/_next/static/') && !url.startsWith('/icons/'))).toEqual([]);
  });
});

test.describe('on a phone', () => {
  test.use(iPhone13);

  test('no page is wider than the screen, at 360, 390 and 430 pixels', async ({ page }) => {
    test.setTimeout(180_000);
    const pages = await everyPage(page);
    const tooWide: string[] = [];
    for (const width of [360, 390, 430]) {
      await page.setViewportSize({ width, height: 844 });
      for (const url of pages) {
        await page.goto(url);
        await settled(page);
        const measured = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          inner: window.innerWidth,
          // What sticks out, to say where when it fails.
          widest: [...document.querySelectorAll('body *')]
            .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 3)
            .map((element) => `${element.tagName.toLowerCase()}.${String(element.className).slice(0, 60)}`),
        }));
        if (measured.scroll > measured.inner) tooWide.push(`${url} at ${width}: ${measured.scroll} > ${measured.inner} (${measured.widest.join(' | ')})`);
      }
    }
    expect(tooWide).toEqual([]);
  });

  test('the menu reaches every page; Settings is a menu of sections too', async ({ page }) => {
    await page.goto('/');
    await page.getByText('Menu', { exact: true }).click();
    await page.getByRole('navigation', { name: 'Main (menu)' }).getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings\/models$/);
    await expect(page.getByRole('navigation', { name: 'Main (menu)' })).toBeHidden(); // folded again
    await page.getByText('Settings › Models and parameters').click();
    await page.getByRole('navigation', { name: 'Settings sections (menu)' }).getByRole('link', { name: 'Memory' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
    await settled(page);
    await saveScreenshot(page, 'phone-settings');
    await page.goto('/');
    await settled(page);
    await saveScreenshot(page, 'phone-home');
  });

  test('the session page: the layers as tabs, chat first, a dot for news; a card’s Settings › Channels lands there', async ({ page, request }) => {
    test.setTimeout(120_000);
    const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
    expect(reset.status(), await reset.text()).toBe(200);
    const id = await newSession(page, 'On the phone');
    await page.goto(`/sessions/${id}`);
    const session = new SessionPage(page);
    const tabs = page.getByRole('tablist', { name: 'Layers' });
    await expect(tabs.getByRole('tab', { name: 'Chat' })).toHaveAttribute('aria-selected', 'true');
    await expect(session.chat).toBeVisible();
    await expect(session.internal).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

    await session.send('Please create a file and run a command [[tools]]');
    const bash = session.card('bash');
    await expect(bash).toContainText('waiting for your decision');
    // The Internal Dialog thought while the chat was shown: its tab says so.
    await expect(page.getByTestId('news-internal')).toBeVisible();
    await saveScreenshot(page, 'phone-session');
    await tabs.getByRole('tab', { name: /Internal Dialog/ }).click();
    await expect(session.internal).toBeVisible();
    await expect(session.chat).toBeHidden();
    await expect(page.getByTestId('news-internal')).toHaveCount(0);
    await tabs.getByRole('tab', { name: /Chat/ }).click();

    // A card points to where a phone is paired: the link lands on that section.
    await bash.getByRole('link', { name: 'Settings › Channels' }).click();
    await expect(page).toHaveURL(/\/settings\/channels$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
  });
});
