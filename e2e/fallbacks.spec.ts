// Fallback models (issue 78 §2) on the session page: the Internal Dialog's own model cannot serve
// (a Claude Code CLI that is not installed here), its fallback on the fake server answers the same
// message, and the page says which model answers and why; the session settings show the fallback
// under its layer, where one more can be added and saved.
import { expect, test } from '@playwright/test';
import { fakeLlmEndpoint } from './support/fake-models';
import { SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('a layer whose model cannot serve falls back: answered by the next, and the page says so', async ({ page, request }) => {
  const fallback = { backend: 'openai_compatible', model: 'fake-large', max_tokens: 512, endpoint: fakeLlmEndpoint };
  const created = await request.post('/api/sessions', {
    data: { persona: 'iris', name: 'Falls back', models: { c_model: { backend: 'claude_code_cli', model: 'sonnet', max_tokens: 256, cli_path: '/nowhere/claude', fallbacks: [fallback] } } },
  });
  expect(created.status()).toBe(201);
  const { session } = (await created.json()) as { session: { id: string } };
  await page.goto(`/sessions/${session.id}`);
  const chat = new SessionPage(page);
  await chat.send('Is anyone there?');
  await expect(chat.messages.filter({ hasText: 'You said: Is anyone there?' })).toHaveCount(1);
  const notice = page.getByTestId('fallback-notice');
  await expect(notice).toContainText('The Internal Dialog answers on its fallback openai_compatible · fake-large');
  await expect(notice).toContainText('claude_code_cli · sonnet: cli missing');
  await expect(notice).toContainText('The first model is asked again after');
  await saveScreenshot(page, 'session-fallback');

  // The session's settings: the fallback under its layer; one more for the Subconscious, saved and read back.
  await page.getByText('Session settings: pacing, spontaneous speech, models').click();
  const form = page.getByRole('form', { name: 'Session settings' });
  const first = form.getByRole('group', { name: 'Fallback 1 of the Internal Dialog (C_model)' });
  await expect(first.getByLabel('Model')).toHaveValue('fake-large');
  await form.getByRole('group', { name: 'Fallbacks of the Subconscious (S_model)' }).getByRole('button', { name: /\+ Add a fallback/ }).click();
  const added = form.getByRole('group', { name: 'Fallback 1 of the Subconscious (S_model)' });
  await added.getByLabel('Backend').selectOption('openai_compatible');
  await added.getByLabel('Model').fill('fake-small');
  await added.getByLabel('Endpoint').fill(fakeLlmEndpoint);
  await form.getByRole('button', { name: 'Save session settings' }).click();
  await expect(form.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
  const stored = (await (await request.get(`/api/sessions/${session.id}`)).json()) as { session: { models: { s_model: { fallbacks?: { model: string }[] }; c_model: { fallbacks?: { model: string }[] } } } };
  expect(stored.session.models.s_model.fallbacks?.map((entry) => entry.model)).toEqual(['fake-small']);
  expect(stored.session.models.c_model.fallbacks?.map((entry) => entry.model)).toEqual(['fake-large']);
});
