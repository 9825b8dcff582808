// Rules made and revoked on the pages reach the minds at once (issue 72 §0). On the production
// build the routes run in Next's bundles and the minds in the server's: a rule revoked on the
// Settings page bumped the route copy's version while the minds kept the rules they had read, and
// bash went on running without a card. Here, on that build: a card's "Always allow" → the next
// call runs without one; the rule revoked on the page → the next call waits on a card again; a
// deny rule made through the page's route → the next call is denied without asking.
import { expect, test, type APIRequestContext } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

interface CallJson {
  name: string;
  status: string;
  args: { command?: string } | null;
  decision: { decision: string; by: { via: string } } | null;
}

/** The session's bash calls of this command, newest last. */
async function bashCalls(request: APIRequestContext, sessionId: string, command: string): Promise<CallJson[]> {
  const response = await request.get(`/api/sessions/${sessionId}/tool-calls`);
  expect(response.status(), await response.text()).toBe(200);
  const { tool_calls: calls } = (await response.json()) as { tool_calls: CallJson[] };
  return calls.filter((call) => call.name === 'bash' && call.args?.command === command);
}

test('a rule made on a card, revoked on the page, and a deny rule: each holds for the very next call', async ({ page, request }) => {
  test.setTimeout(150_000);
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const home = new HomePage(page);
  await home.goto();
  await home.createSession({ name: 'Rules', persona: 'iris' });
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  const sessionId = page.url().split('/').pop()!;
  const session = new SessionPage(page);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  const reply = (word: string) => session.messages.filter({ hasText: 'Here is what the tools said:' }).filter({ hasText: word });

  // 1. The first call waits on a card; "Always allow in this session", then approve.
  await session.send('Say it back [[bash hello]]');
  const first = session.card('bash').last();
  await expect(first).toContainText('waiting for your decision');
  await first.getByLabel('Always allow').selectOption('session');
  await first.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(reply('hello')).toHaveCount(1);

  // 2. The same command again: the rule lets it run at once, no card waits.
  await session.send('Once more [[bash hello]]');
  await expect(reply('hello')).toHaveCount(2);
  await expect.poll(async () => (await bashCalls(request, sessionId, 'echo hello')).map((call) => [call.status, call.decision?.by.via.startsWith('rule:')])).toEqual([
    ['succeeded', false],
    ['succeeded', true],
  ]);
  await expect(session.chat.getByText('waiting for your decision')).toHaveCount(0);

  // 3. Revoked on Settings › Tools (a route, Next's copy of the modules) → the next call asks.
  await page.goto('/settings/tools');
  const rules = page.getByRole('list', { name: 'Rules' });
  await expect(rules).toContainText('echo hello');
  await rules.getByRole('listitem').filter({ hasText: 'echo hello' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('None. Choose “Always allow” on a card to add one.')).toBeVisible();
  await saveScreenshot(page, 'settings-tools-rule-revoked');
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await session.send('And again [[bash hello]]');
  const third = session.card('bash').filter({ hasText: 'waiting for your decision' });
  await expect(third).toHaveCount(1);
  await expect.poll(async () => (await bashCalls(request, sessionId, 'echo hello')).at(-1)?.status).toBe('awaiting_approval');
  await third.getByRole('button', { name: 'Deny' }).click();
  await expect(session.chat.getByText('waiting for your decision')).toHaveCount(0);

  // 4. A deny rule made through the page's route → the next call is denied by it, unasked.
  const deny = await request.post('/api/tool-rules', { data: { scope: 'session', session_id: sessionId, tool: 'bash', effect: 'deny', matcher: { kind: 'command-prefix', argv: ['echo'] } } });
  expect(deny.status(), await deny.text()).toBe(201);
  await session.send('Try it [[bash goodbye]]');
  await expect(session.messages.filter({ hasText: 'Here is what the tools said: Error: Denied by a rule the user set for bash.' })).toHaveCount(1);
  const denied = await bashCalls(request, sessionId, 'echo goodbye');
  expect(denied.map((call) => [call.status, call.decision?.decision, call.decision?.by.via.startsWith('rule:')])).toEqual([['denied', 'deny', true]]);
  await expect(session.chat.getByText('waiting for your decision')).toHaveCount(0);
});
