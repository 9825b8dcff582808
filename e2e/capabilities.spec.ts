// The Capabilities editor in Chromium: a tool → tool connection is refused with its reason (drawn
// and chosen), core → tool is accepted, a stray tool shows CAPABILITY_NOT_CONNECTED on its node,
// Save is refused until it is fixed, a reload keeps the saved graph, and a session created
// afterwards cannot use a tool that was disconnected.
import { expect, test } from '@playwright/test';
import { fakeModels } from './support/fake-models';
import { saveScreenshot } from './support/screenshots';

test('edit a persona graph: refused and accepted connections, live validation, save, reload, and what a new session may use', async ({ page, request }) => {
  test.setTimeout(90_000);
  const created = await request.post('/api/personas', { data: { name: 'graphy', content: '# Graphy\nA persona for the capabilities editor.\n' } });
  expect(created.status(), await created.text()).toBe(201);

  await page.goto('/personas/graphy');
  await page.getByRole('link', { name: 'Capabilities' }).click();
  await expect(page.getByRole('heading', { name: 'Capabilities of graphy' })).toBeVisible();
  await expect(page.getByText('Default graph (not saved yet)')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Valid' })).toBeVisible();

  // Drawn: python's handle dropped on files' — refused, with the rule's reason.
  const sourceHandle = page.locator('.react-flow__node[data-id="python"] .react-flow__handle.source');
  const targetHandle = page.locator('.react-flow__node[data-id="files"] .react-flow__handle.target');
  const start = (await sourceHandle.boundingBox())!;
  const end = (await targetHandle.boundingBox())!;
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 12 });
  await page.mouse.up();
  await expect(page.getByRole('region', { name: 'Connect' }).getByRole('alert')).toContainText('python → files refused: tool.python is a capability');
  // Chosen: the same rule.
  await page.getByRole('region', { name: 'Connect' }).getByRole('combobox', { name: 'From' }).selectOption('bash');
  await page.getByRole('region', { name: 'Connect' }).getByRole('combobox', { name: 'To' }).selectOption('files');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Connect' }).getByRole('alert')).toContainText('bash → files refused: tool.bash is a capability: capabilities are used by agent.core');

  // A new HTTP node, not connected yet: marked in place, and Save is refused.
  await page.getByRole('button', { name: '+ HTTP' }).click();
  await expect(page.getByTestId('node-http1')).toContainText('CAPABILITY_NOT_CONNECTED');
  await expect(page.getByRole('list', { name: 'Graph errors' })).toContainText('CAPABILITY_NOT_CONNECTED nodes[http1]');
  await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();
  const refused = await request.put('/api/personas/graphy/capabilities', { data: { graph: { id: 'g', version: 1, nodes: [{ id: 'core', type: 'agent.core' }], edges: [] } } });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error.details.map((error: { code: string }) => error.code)).toEqual(['NO_MODEL']);

  // core → http1: accepted; the graph is valid again.
  await page.getByRole('region', { name: 'Connect' }).getByRole('combobox', { name: 'From' }).selectOption('core');
  await page.getByRole('region', { name: 'Connect' }).getByRole('combobox', { name: 'To' }).selectOption('http1');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Valid' })).toBeVisible();
  await expect(page.getByTestId('node-http1')).not.toContainText('CAPABILITY_NOT_CONNECTED');

  // bash goes: selected, deleted; then saved.
  await page.getByTestId('node-bash').click();
  await page.getByRole('region', { name: 'Node bash' }).getByRole('button', { name: 'Delete node' }).click();
  await expect(page.getByTestId('node-bash')).toHaveCount(0);
  await expect(page.getByTestId('capability-summary')).not.toContainText('bash');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
  await saveScreenshot(page, 'capabilities');

  await page.reload();
  await expect(page.getByText('Saved graph')).toBeVisible();
  await expect(page.getByTestId('node-http1')).toBeVisible();
  await expect(page.getByTestId('node-bash')).toHaveCount(0);

  // The seed's own example imports and validates as written (not saved: the editor holds it).
  await page.locator('input[type="file"]').setInputFiles('test/fixtures/seed-004-example-graph.json');
  await expect(page.getByRole('status').filter({ hasText: 'Imported seed-004-example-graph.json' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Valid' })).toBeVisible();
  await expect(page.getByTestId('node-agent1')).toBeVisible();
  await page.reload(); // nothing saved: the saved graph is back
  await expect(page.getByTestId('node-http1')).toBeVisible();

  // A session created now cannot use bash, and its settings cannot bring it back.
  const session = await request.post('/api/sessions', { data: { name: 'After the graph', persona: 'graphy', models: fakeModels() } });
  expect(session.status(), await session.text()).toBe(201);
  const { session: created2 } = await session.json();
  expect(created2.params.tools).not.toContain('bash');
  expect(created2.params.tools).toContain('python');
  const patched = await request.patch(`/api/sessions/${created2.id}`, { data: { params: { ...created2.params, tools: ['bash', 'python'] } } });
  expect(patched.status(), await patched.text()).toBe(200);
  expect((await patched.json()).session.params.tools).toEqual(['python']);
  // The session page shows the graph it was created with; bash cannot be ticked there.
  await page.goto(`/sessions/${created2.id}`);
  await page.getByText('Session settings: pacing, spontaneous speech, models').click();
  await expect(page.getByTestId('session-capabilities')).toContainText("Capabilities from graphy's graph when this session was created");
  await expect(page.getByTestId('session-capabilities')).not.toContainText('bash');
  await expect(page.getByRole('checkbox', { name: 'bash' })).toBeDisabled();
  await request.post(`/api/sessions/${created2.id}/pause`);
});
