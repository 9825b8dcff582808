// The pages a person opens, for the checks that go over all of them (issue 50: width on a phone, axe).
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { settingsSections } from '../../components/settings/settings-sections';
import { fakeModels } from './fake-models';

const created: string[] = [];

/** A session of iris on the fake models, deleted by `deleteNewSessions` when the test ends. */
export async function newSession(page: Page, name: string): Promise<string> {
  const answer = await page.request.post('/api/sessions', { data: { persona: 'iris', name, models: fakeModels() } });
  expect(answer.status(), await answer.text()).toBe(201);
  const id = ((await answer.json()) as { session: { id: string } }).session.id;
  created.push(id);
  return id;
}

/**
 * The sessions these checks made, deleted: left active, each one's Subconscious keeps calling the
 * shared fake model, and the specs after them (session-live's first cycle within 10 s) wait behind.
 */
export async function deleteNewSessions(request: APIRequestContext): Promise<void> {
  for (const id of created.splice(0)) await request.delete(`/api/sessions/${id}`);
}

/** The pages a person opens: every top-level page, each settings section, a persona and a session. */
export async function everyPage(page: Page): Promise<string[]> {
  const session = await newSession(page, 'Every page');
  return ['/', '/personas', '/personas/iris', '/personas/iris/capabilities', '/memory', '/people', '/skills', '/spending', ...settingsSections.map((section) => `/settings/${section.slug}`), `/sessions/${session}`];
}

/** Waits for a page's data to arrive (its loading lines gone), so what is measured is the page in use. */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

