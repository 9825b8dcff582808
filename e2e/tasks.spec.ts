// A task as a person runs it: on the fake, they give the agent a goal and watch it plan, write,
// ask to run a command (approved on its card), ask a question (answered on the task's card) and
// finish with a result, with nobody typing "continue"; a reload keeps everything.
import { expect, test } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('start a task, watch the plan advance, approve a call, answer a question, see the result; reload keeps it', async ({ page, request }) => {
  test.setTimeout(120_000);
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const home = new HomePage(page);
  await home.goto();
  await home.createSession({ name: 'Task', persona: 'iris' });
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  const session = new SessionPage(page);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  await page.getByRole('button', { name: 'New task' }).click();
  const form = page.getByRole('form', { name: 'New task' });
  await form.getByLabel('Goal').fill('Write notes, show them and title them [[full]]');
  await form.getByLabel('Max steps').fill('8');
  await form.getByRole('button', { name: 'Start task' }).click();

  const card = page.getByRole('region', { name: 'Task Write notes, show them and title them [[full]]' });
  await expect(card.getByTestId('task-status')).toHaveText(/running|blocked/);
  // The plan advances on its own; the command waits for a decision on its card in the chat.
  const plan = card.getByRole('list', { name: 'Plan' });
  await expect(plan.getByRole('listitem')).toHaveCount(3);
  const bash = session.card('bash');
  await expect(bash).toContainText('waiting for your decision');
  await expect(card.getByTestId('task-status')).toHaveText('blocked');
  await expect(card).toContainText('Waiting for your decision on a tool call in the chat.');
  await expect(plan.getByRole('listitem').nth(0)).toContainText('(done)');
  await saveScreenshot(page, 'session-task-approval');
  await bash.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(bash).toContainText('done');

  // Then a question, answered on the task's card.
  await expect(card).toContainText('What title should the notes get?');
  await card.getByLabel('Your answer').fill('Groceries');
  await card.getByRole('button', { name: 'Answer' }).click();
  await expect(card.getByTestId('task-status')).toHaveText('completed');
  await expect(card.getByTestId('task-result')).toHaveText('Notes titled "Groceries"');
  await expect(card.getByTestId('task-progress')).toContainText('step 4 / 8');
  await expect(plan.getByRole('listitem').filter({ hasText: '(done)' })).toHaveCount(3);
  await expect(session.messages.filter({ hasText: 'Wrote notes.txt.' })).toHaveCount(1);
  await saveScreenshot(page, 'session-task');

  await page.reload();
  await expect(card.getByTestId('task-status')).toHaveText('completed');
  await expect(card.getByTestId('task-result')).toHaveText('Notes titled "Groceries"');
  await expect(session.card('bash')).toContainText('done');
});
