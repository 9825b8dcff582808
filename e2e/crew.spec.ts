// Seed 001's crew as a person meets it (issue 34): "Try the crew" on the home page of a fresh
// install starts the general assistant's first task; the lead notes, delegates the review and
// finishes with the reviewer's verdict, the reviewer's task nested in the lead's card with a link to
// its session. Then a task the lead hands to the researcher, whose python call waits on a card shown
// in the lead's chat, approved there; the researcher's answer comes back and the lead finishes.
import { expect, test } from '@playwright/test';
import { SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('Try the crew: the lead delegates, the specialist’s task nests in its card, a specialist’s card is decided from the lead’s chat', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await page.getByRole('region', { name: 'Try the crew' }).getByRole('button', { name: 'Try the crew' }).click();
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'The crew' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  // The lead's task, with the reviewer's nested inside it.
  const lead = page.getByRole('region', { name: /^Task Write a five-line release note/ });
  await expect(lead.getByTestId('task-status').first()).toHaveText('completed', { timeout: 30_000 });
  const review = lead.getByRole('region', { name: /^Delegated task Review the draft release note/ });
  await expect(review.getByTestId('task-specialist')).toHaveText('reviewer');
  await expect(review.getByTestId('task-status')).toHaveText('completed');
  await expect(lead.getByTestId('task-result').last()).toContainText('as the lead noted, five lines for existing users');
  await saveScreenshot(page, 'crew');

  // A task for the researcher: its python call waits on a card in the lead's chat.
  const session = new SessionPage(page);
  await page.getByRole('button', { name: 'New task' }).click();
  const form = page.getByRole('form', { name: 'New task' });
  await form.getByLabel('Goal').fill('Find the answer [[research]]');
  await form.getByRole('button', { name: 'Start task' }).click();
  const research = page.getByRole('region', { name: 'Task Find the answer [[research]]' });
  const python = session.card('python');
  await expect(python).toContainText('waiting for your decision', { timeout: 30_000 });
  await expect(python.getByTestId('card-via')).toHaveText('researcher (specialist)');
  await expect(research.getByRole('region', { name: /^Delegated task Research: what is six times seven/ }).getByTestId('task-status')).toHaveText('blocked');
  await saveScreenshot(page, 'crew-specialist-card');
  await python.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(research.getByTestId('task-status').first()).toHaveText('completed', { timeout: 30_000 });
  await expect(research.getByTestId('task-result').first()).toHaveText('The answer is 42 (computed in python).');

  // The specialist's own session, linked both ways.
  await review.getByTestId('task-specialist').click();
  await expect(page.getByText('persona: reviewer')).toBeVisible();
  await page.getByTestId('specialist-for').click();
  await expect(page.getByRole('heading', { name: 'The crew' })).toBeVisible();
});
