// Memory as a person meets it: told in one session, it is in the next session's prompt (the
// context viewer shows it); the Memory page shows it with its source, finds it with the agent's
// own search, and forgets it — after which the next prompt no longer has it.
import { expect, test } from '@playwright/test';
import { fakeLlmEndpoint, fakeModels, fakeParams } from './support/fake-models';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('told in one session, remembered in the next; shown, searched and forgotten on the Memory page', async ({ page, request }) => {
  test.setTimeout(120_000);
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const home = new HomePage(page);
  const session = new SessionPage(page);

  await home.goto();
  await home.createSession({ name: 'Monday', persona: 'iris' });
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  await session.send('My cat is called Pixel [[remember]]');
  await expect(session.messages.filter({ hasText: 'Here is what the tools said: Remembered as #' })).toHaveCount(1);

  await home.goto();
  await home.createSession({ name: 'Tuesday', persona: 'iris' });
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  const tuesday = page.url();
  await session.send('What is my cat called?');
  await expect(session.messages.filter({ hasText: 'You said: What is my cat called?' })).toHaveCount(1);
  await page.getByText('Context: the last prompt of each layer').click();
  const internal = page.getByRole('region', { name: 'Internal Dialog prompt' });
  await expect(internal).toContainText('<memory>From earlier conversations');
  await expect(internal).toContainText(/\[fact #\d+, [\d-]+\] My cat is called Pixel/);

  await page.getByRole('link', { name: 'Memory', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Memory', level: 1 })).toBeVisible();
  await page.getByRole('combobox', { name: 'Persona' }).selectOption('iris'); // other specs add personas that sort first
  const facts = page.getByRole('region', { name: 'Facts' });
  const fact = facts.getByRole('listitem').filter({ hasText: 'My cat is called Pixel' });
  await expect(fact).toBeVisible();
  await expect(fact.getByRole('link', { name: 'from a session' })).toBeVisible();
  await page.getByRole('search').getByLabel('Search what it remembers').fill('cat name');
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('region', { name: 'Search results' })).toContainText('My cat is called Pixel');
  await saveScreenshot(page, 'memory');
  await fact.getByRole('button', { name: 'Forget' }).click();
  await expect(facts.getByRole('listitem').filter({ hasText: 'My cat is called Pixel' })).toHaveCount(0);

  await page.goto(tuesday);
  await session.send('Do you still know my cat?');
  await expect(session.messages.filter({ hasText: 'You said: Do you still know my cat?' })).toHaveCount(1);
  await page.getByText('Context: the last prompt of each layer').click();
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(internal).toContainText('Do you still know my cat?');
  await expect(internal).not.toContainText('[fact #');
});

test('Settings › Memory: an embeddings endpoint is tested and saved, its key never shown; recall then finds by meaning', async ({ page, request }) => {
  test.setTimeout(60_000);
  await page.goto('/settings/memory');
  const section = page.getByRole('region', { name: 'Memory' });
  await section.getByLabel('An embeddings endpoint').check();
  await section.getByLabel('Endpoint', { exact: true }).fill(fakeLlmEndpoint);
  await section.getByLabel('Model', { exact: true }).fill('fake-embed');
  await section.getByLabel(/API key/).fill('sk-e2e-embed-4242');
  await section.getByRole('button', { name: 'Test embeddings' }).click();
  await expect(section.getByRole('status').filter({ hasText: 'Works' })).toHaveText('Works: 64-dimensional vectors.');
  await section.getByRole('button', { name: 'Save memory settings' }).click();
  await expect(section.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
  await saveScreenshot(page, 'settings-memory');
  await page.reload();
  await expect(page.getByRole('region', { name: 'Memory' }).getByLabel('An embeddings endpoint')).toBeChecked();
  await expect(page.getByRole('region', { name: 'Memory' })).toContainText('(set, …4242)');
  const stored = await (await request.get('/api/memory-settings')).text();
  expect(stored).not.toContain('sk-e2e-embed-4242');

  // A memory about an automobile is found by "car" only through its vector (indexed in the background).
  const created = await request.post('/api/memories', { data: { persona: 'iris', content: 'The user drives a red automobile' } });
  expect(created.status(), await created.text()).toBe(201);
  await expect
    .poll(async () => ((await (await request.get('/api/personas/iris/recall?q=car')).json()) as { results: { content: string }[] }).results.map((hit) => hit.content), { timeout: 20_000 })
    .toContain('The user drives a red automobile');

  const off = await request.put('/api/memory-settings', { data: { embeddings: null, consolidation: { enabled: true, calls_per_hour: 6, usd_per_hour: 0.05, min_new_messages: 4 } } });
  expect(off.status()).toBe(200);
});
