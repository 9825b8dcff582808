// The agent acts, as a person sees it: on the fake, it writes a file and asks to run a command
// and some Python; the person approves one and denies the other with a reason, sees the outputs,
// reloads, and finds everything kept. The sandbox is the real bubblewrap.
import path from 'node:path';
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
  await page.goto('/settings/tools');
  const tools = page.getByRole('region', { name: 'Tools', exact: true });
  await expect(tools.getByRole('status', { name: 'Sandbox status' })).toContainText('Sandbox working');
  const table = tools.getByRole('table', { name: 'Built-in tools' });
  await expect(table.getByRole('row').filter({ hasText: 'bash' })).toContainText('asks you first');
  await expect(table.getByRole('row').filter({ hasText: 'write_file' })).toContainText('none (workspace only)');
  await tools.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'settings-tools');
});

test('an MCP server pasted in Settings: connected, its tools chosen; a session calls one at once and one after approval', async ({ page, request }) => {
  test.setTimeout(120_000);
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  try {
    await page.goto('/settings/mcp');
    const section = page.getByRole('region', { name: 'MCP servers' });
    await section.getByLabel('MCP servers configuration').fill(JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], env: { DEMO_TOKEN: 'demo-secret-value-1234' } } } }));
    await section.getByRole('button', { name: 'Save servers' }).click();
    const server = section.getByRole('listitem', { name: 'MCP server everything' });
    await expect(server.getByTestId('mcp-state')).toHaveText('connected');
    await expect(server).toContainText(/\d+ tools · ~[\d,]+ definition tokens/);
    // The secret is never shown whole; switching a tool off is kept.
    await expect(section.getByLabel('MCP servers configuration')).toHaveValue(/••••1234/);
    await expect(page.getByText('demo-secret-value-1234')).toHaveCount(0);
    await server.getByLabel('get-sum on').uncheck();
    await expect(section.getByRole('status')).toContainText('get-sum off.');
    await expect(server.getByLabel('echo approval')).toHaveValue('hint');
    await server.getByRole('button', { name: 'Test' }).click();
    await expect(section.getByRole('status')).toContainText(/everything: connected, \d+ tools/);
    await page.reload();
    await expect(server.getByLabel('get-sum on')).not.toBeChecked();
    await server.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'settings-mcp');

    const home = new HomePage(page);
    await home.goto();
    await home.createSession({ name: 'MCP', persona: 'iris' });
    await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
    const session = new SessionPage(page);
    // Trusted (Settings › Tools): its unreviewed descriptions would make the read-only echo ask too (issue 32).
    expect((await request.put('/api/trust', { data: { hosts: [], mcp_servers: ['everything'] } })).status()).toBe(200);
    await session.send('Ask your MCP server [[mcp]]');
    const toggle = session.card('everything__toggle-simulated-logging');
    await expect(toggle).toContainText('waiting for your decision');
    await toggle.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(toggle).toContainText('done');
    const reply = session.messages.filter({ hasText: 'Here is what the tools said:' });
    await expect(reply).toContainText('Echo: from the mind');
    await expect(session.toolActivity.getByText('everything__echo')).toBeVisible();
  } finally {
    await request.put('/api/trust', { data: { hosts: [], mcp_servers: [] } });
    const cleared = await request.put('/api/mcp-servers', { data: { mcpServers: {} } });
    expect(cleared.status()).toBe(200);
  }
});
