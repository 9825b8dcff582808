// The Spending page and Settings › Allowances in Chromium (issue 48): a month of generated usage
// (rows of llm_calls written into the e2e server's own database, as its model calls would have),
// an allowance set from the form, today's bar, the charts by layer and by persona, the costliest
// sessions, and one session's own spending from its page.
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';
import { saveScreenshot } from './support/screenshots';

const day = 24 * 60 * 60 * 1000;

test('a month of usage: allowances set in Settings, the charts and the costliest sessions on the Spending page', async ({ page, request }) => {
  const made: { id: string; persona: string }[] = [];
  for (const [persona, name] of [['iris', 'Research assistant'], ['iris', 'Weekly report'], ['sage', 'Inbox triage']] as const) {
    const created = await request.post('/api/sessions', { data: { persona, name } });
    expect(created.status(), await created.text()).toBe(201);
    made.push({ id: ((await created.json()) as { session: { id: string } }).session.id, persona });
  }
  await request.post(`/api/sessions/${made[0]!.id}/pause`);
  await request.post(`/api/sessions/${made[1]!.id}/pause`);
  await request.post(`/api/sessions/${made[2]!.id}/pause`);
  const database = new Database(path.resolve('test-results/e2e-run/data/agentcsd.db'), { timeout: 5_000 });
  const insert = database.prepare(
    `INSERT INTO llm_calls (session_id, layer, backend, model, started_at, duration_ms, input_tokens, output_tokens, cost_usd, trace_id) VALUES (?, ?, 'anthropic', 'claude-haiku-4-5', ?, 800, ?, ?, ?, ?)`,
  );
  const now = Date.now();
  database.transaction(() => {
    for (let back = 0; back < 30; back++) {
      const at = (hour: number) => new Date(now - back * day - hour * 60 * 60 * 1000).toISOString().replace('Z', '+00:00');
      const weekday = (back % 7) + 1;
      insert.run(made[0]!.id, 'internal', at(1), 3_000, 400, 0.011 * weekday, null);
      insert.run(made[0]!.id, 'internal', at(2), 4_000, 600, 0.02 * weekday, 'task-trace');
      insert.run(made[1]!.id, 'subconscious', at(3), 2_000, 100, 0.004 * (8 - weekday), null);
      insert.run(made[2]!.id, 'internal', at(4), 2_500, 300, 0.009 * ((back % 3) + 1), null);
      insert.run(made[2]!.id, 'memory', at(5), 5_000, 500, 0.006, null);
    }
  })();
  database.close();

  await page.goto('/settings/spending');
  const section = page.getByRole('region', { name: 'Allowances' });
  await section.getByRole('button', { name: 'Add an allowance' }).click();
  await section.getByLabel('Dollars a day').fill('0.50');
  await section.getByLabel('Time zone').fill('UTC');
  await section.getByRole('button', { name: 'Save allowances' }).click();
  await expect(section.getByRole('status')).toContainText('Allowances saved');
  await expect(section.getByRole('meter', { name: 'spent today' })).toBeVisible();

  await page.goto('/spending');
  await expect(page.getByRole('heading', { name: 'Spending', level: 1 })).toBeVisible();
  await expect(page.getByTestId('allowance-today')).toContainText('The whole app');
  await expect(page.getByTestId('allowance-today')).toContainText('of $0.50');
  await expect(page.getByText('By what made the calls')).toBeVisible();
  await expect(page.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(page.locator('.recharts-legend-item-text', { hasText: 'Internal Dialog' }).first()).toBeVisible();
  await expect(page.locator('.recharts-legend-item-text', { hasText: 'sage' })).toBeVisible();
  const top = page.getByRole('table');
  // Ten at most (the whole e2e run's sessions are there too, at $0 with the fake models): ours lead.
  await expect(top.getByRole('row').nth(1)).toContainText('Research assistant');
  expect(await top.getByRole('row').count()).toBeLessThanOrEqual(11);
  await expect(top).toContainText('Inbox triage');
  await expect(top).toContainText('Weekly report');
  await saveScreenshot(page, 'spending');

  await page.goto(`/sessions/${made[2]!.id}`);
  await page.locator(`a[href="/spending?session=${made[2]!.id}"]`).click();
  await expect(page.getByRole('heading', { name: 'Spending of one session' })).toBeVisible();
  await expect(page.locator('.recharts-legend-item-text', { hasText: 'sage' })).toBeVisible();
  await expect(page.locator('.recharts-legend-item-text', { hasText: 'iris' })).toHaveCount(0);
});

test('tokens per hour by what made the calls — answering apart from idle thinking and dreaming — on Spending and on the session page', async ({ page, request }) => {
  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'An idle day' } });
  expect(created.status(), await created.text()).toBe(201);
  const sessionId = ((await created.json()) as { session: { id: string } }).session.id;
  await request.post(`/api/sessions/${sessionId}/pause`);
  const database = new Database(path.resolve('test-results/e2e-run/data/agentcsd.db'), { timeout: 5_000 });
  const insert = database.prepare(
    `INSERT INTO llm_calls (session_id, layer, backend, model, started_at, duration_ms, input_tokens, output_tokens, cost_usd, trace_id) VALUES (?, ?, 'anthropic', 'claude-haiku-4-5', ?, 800, ?, ?, ?, NULL)`,
  );
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 60 * 60 * 1000).toISOString().replace('Z', '+00:00');
  database.transaction(() => {
    insert.run(sessionId, 'internal', hoursAgo(1), 3_000, 400, 0.005);
    insert.run(sessionId, 'internal', hoursAgo(2), 3_000, 400, 0.005);
    insert.run(sessionId, 'subconscious', hoursAgo(3), 2_000, 100, 0.002);
    insert.run(sessionId, 'memory', hoursAgo(4), 5_000, 500, 0.006);
    insert.run(sessionId, 'subconscious', hoursAgo(5), 2_000, 100, 0.002);
    insert.run(sessionId, 'subconscious', hoursAgo(30), 2_000, 100, 0.002); // yesterday: in the week, not the day
  })();
  database.close();

  await page.goto(`/sessions/${sessionId}`);
  const chart = page.getByTestId('hourly-tokens');
  await expect(chart.getByTestId('hourly-summary')).toContainText('answering 6,800');
  await expect(chart.getByTestId('hourly-summary')).toContainText(/idle thinking and dreaming (9,[7-9]\d\d|1\d,\d{3})/);
  await expect(chart.locator('.recharts-legend-item-text', { hasText: 'Idle thinking (Subconscious)' })).toBeVisible();
  await expect(chart.locator('.recharts-legend-item-text', { hasText: 'Dreaming (consolidation)' })).toBeVisible();
  await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await chart.scrollIntoViewIfNeeded();
  await chart.screenshot({ path: 'docs/screenshots/session-hourly-tokens.png', animations: 'disabled' });
  await chart.getByRole('button', { name: 'Last week' }).click();
  await expect(chart.getByRole('button', { name: 'Last week' })).toHaveAttribute('aria-pressed', 'true');
  await expect(chart.getByTestId('hourly-summary')).toContainText(/idle thinking and dreaming (11,[89]\d\d|1\d,\d{3})/);

  await page.goto('/spending');
  const all = page.getByTestId('hourly-tokens');
  await expect(all.locator('.recharts-legend-item-text', { hasText: 'Answering' })).toBeVisible();
  await expect(all.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await saveScreenshot(page, 'spending-hourly');
});

test('the home page says what an idle conversation costs a day on the chosen models', async ({ page, request }) => {
  // The defaults other specs may have changed: the fake models, adaptive pacing.
  expect((await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } })).ok()).toBe(true);
  await page.goto('/');
  const line = page.getByTestId('idle-cost');
  await expect(line).toContainText('An idle conversation on these models (Subconscious: fake-small) costs');
  // Default rest: a couple of thoughts on its first day, then nothing until someone speaks.
  await expect(line).toContainText(/thoughts?, then it rests until something happens/);
  await expect(line).toContainText('nothing on the days after, until someone speaks');
});
