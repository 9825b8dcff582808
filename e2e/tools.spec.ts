// The agent acts, as a person sees it: on the fake, it writes a file and asks to run a command
// and some Python; the person approves one and denies the other with a reason, sees the outputs,
// reloads, and finds everything kept. The sandbox is the real bubblewrap.
import { expect, test } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('create a file and run a command: approve one call, deny another with a reason, reload', async ({ page, request }) => {
  test.setTimeout(120_000);
  // Other specs change the default models: this one needs the fake.
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const home = new HomePage(page);
  await home.goto();
  await home.createSession({ name: 'Tools', persona: 'iris' });
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  const session = new SessionPage(page);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  await session.send('Please create a file and run a command [[tools]]');
  // The words before acting stream into the chat; the file write needs no card and runs at once.
  await expect(session.chat.getByText('Creating notes.txt, then I will show it and work something out.')).toBeVisible();
  const bash = session.card('bash');
  const python = session.card('python');
  await expect(bash).toContainText('waiting for your decision');
  await expect(bash.getByLabel('Command')).toHaveText('cat notes.txt && wc -c < notes.txt');
  await expect(bash).toContainText('Show the new file and count its bytes');
  await expect(python).toContainText('waiting for your decision');
  await expect(session.chat.getByRole('button', { name: 'Approve all 2' })).toBeVisible();
  await expect(session.toolActivity.getByText('write_file')).toBeVisible();
  await saveScreenshot(page, 'session-tool-cards');

  await bash.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(bash).toContainText('done');
  await expect(bash.getByLabel('Output of bash')).toContainText('remember the milk');
  await python.getByLabel('Reason (sent to the agent if you deny)').fill('no Python today');
  await python.getByRole('button', { name: 'Deny' }).click();
  await expect(python).toContainText('Denied by you: no Python today');

  // The model got both results, in its order, and answered.
  const reply = session.messages.filter({ hasText: 'Here is what the tools said:' });
  await expect(reply).toContainText('Created notes.txt');
  await expect(reply).toContainText('remember the milk');
  await expect(reply).toContainText('Denied by the user: no Python today');
  await expect(session.toolActivity.last()).toContainText('exit 0');
  await saveScreenshot(page, 'session-tools');

  // Reload: the cards, their decisions and outputs are all still there.
  await page.reload();
  await expect(session.card('bash')).toContainText('done');
  await expect(session.card('bash').getByLabel('Output of bash')).toContainText('remember the milk');
  await expect(session.card('python')).toContainText('Denied by you: no Python today');
  await expect(reply).toHaveCount(1);
  await expect(session.toolActivity.getByText('write_file')).toBeVisible();
});

test('Settings shows the sandbox working, the tools and their approval', async ({ page }) => {
  await page.goto('/settings');
  const tools = page.getByRole('region', { name: 'Tools' });
  await expect(tools.getByRole('status', { name: 'Sandbox status' })).toContainText('Sandbox working');
  const table = tools.getByRole('table', { name: 'Built-in tools' });
  await expect(table.getByRole('row').filter({ hasText: 'bash' })).toContainText('asks you first');
  await expect(table.getByRole('row').filter({ hasText: 'write_file' })).toContainText('none (workspace only)');
  await tools.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'settings-tools');
});
