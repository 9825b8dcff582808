import { expect, test } from '@playwright/test';
import { saveScreenshot } from './support/screenshots';

test('save the default models and parameters and see them after a reload', async ({ page }) => {
  await page.goto('/settings');
  const internal = page.getByRole('group', { name: 'Internal Dialog (C_model)' });
  const subconscious = page.getByRole('group', { name: 'Subconscious (S_model)' });

  await subconscious.getByLabel('Backend').selectOption('openai_compatible');
  await subconscious.getByLabel('Model').fill('llama3.2');
  await subconscious.getByLabel('Endpoint').fill('http://localhost:11434');
  await subconscious.getByLabel('Max tokens').fill('1024');
  await internal.getByLabel('Backend').selectOption('anthropic');
  await internal.getByLabel('Model').fill('claude-sonnet-4-5');
  await internal.getByLabel('API key').fill('sk-ant-test-key-9876');
  await page.getByLabel('Summary every N cycles').fill('7');
  await page.getByLabel('Pacing').selectOption('continuous');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved' })).toBeVisible();

  await page.reload();
  await expect(subconscious.getByLabel('Backend')).toHaveValue('openai_compatible');
  await expect(subconscious.getByLabel('Model')).toHaveValue('llama3.2');
  await expect(subconscious.getByLabel('Endpoint')).toHaveValue('http://localhost:11434');
  await expect(subconscious.getByLabel('Max tokens')).toHaveValue('1024');
  await expect(internal.getByLabel('Backend')).toHaveValue('anthropic');
  // The key is write-only: the page shows that one is stored, never the key itself.
  await expect(internal.getByLabel('API key')).toHaveValue('');
  await expect(internal.getByLabel('API key')).toHaveAttribute('placeholder', /stored \(…9876\)/);
  await expect(page.locator('body')).not.toContainText('sk-ant-test-key');
  await expect(page.getByLabel('Summary every N cycles')).toHaveValue('7');
  await expect(page.getByLabel('Pacing')).toHaveValue('continuous');
  await saveScreenshot(page, 'settings');

  // New sessions are prefilled from these defaults.
  await page.goto('/');
  await page.getByRole('button', { name: 'Choose models for this session' }).click();
  await expect(page.getByRole('group', { name: 'Subconscious (S_model)' }).getByLabel('Model')).toHaveValue('llama3.2');
});

test('invalid settings show a clear message and are not saved', async ({ page }) => {
  await page.goto('/settings');
  const subconscious = page.getByRole('group', { name: 'Subconscious (S_model)' });
  await subconscious.getByLabel('Backend').selectOption('openai_compatible');
  await subconscious.getByLabel('Endpoint').fill('');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'endpoint is required' })).toBeVisible();
  await saveScreenshot(page, 'settings-error');
});

test('test connection reports success, the exact failure, and lists models', async ({ page }) => {
  const { startFakeOpenAIServer } = await import('../test/fakes/fake-openai-server');
  const fake = await startFakeOpenAIServer({ script: () => ({ text: 'OK' }), models: ['llama3.2', 'qwen3'] });
  try {
    await page.goto('/settings');
    const subconscious = page.getByRole('group', { name: 'Subconscious (S_model)' });
    await subconscious.getByLabel('Backend').selectOption('openai_compatible');
    await subconscious.getByLabel('Endpoint').fill(fake.url);
    await subconscious.getByLabel('Model').fill('llama3.2');
    await subconscious.getByRole('button', { name: 'Test connection' }).click();
    await expect(subconscious.getByRole('status').filter({ hasText: /Connected in \d+ ms/ })).toBeVisible();

    await subconscious.getByRole('button', { name: 'Fetch models' }).click();
    await expect(subconscious.getByRole('status').filter({ hasText: '2 models available' })).toBeVisible();

    fake.failNext({ kind: 'status', status: 401, message: 'Incorrect API key provided' });
    await subconscious.getByRole('button', { name: 'Test connection' }).click();
    await expect(subconscious.getByRole('status').filter({ hasText: 'Failed (authentication 401): Incorrect API key provided' })).toBeVisible();
    await saveScreenshot(page, 'settings-test-connection');

    const internal = page.getByRole('group', { name: 'Internal Dialog (C_model)' });
    await internal.getByLabel('Backend').selectOption('claude_code_cli');
    await internal.getByLabel('CLI path').fill('/no/such/claude');
    await internal.getByRole('button', { name: 'Test connection' }).click();
    await expect(internal.getByRole('status').filter({ hasText: 'Claude Code CLI not found at "/no/such/claude"' })).toBeVisible();
  } finally {
    await fake.close();
  }
});

test('switching a layer from Claude to an OpenAI-compatible server does not keep the Claude model’s name (issue 75 §9)', async ({ page }) => {
  await page.goto('/settings');
  const internal = page.getByRole('group', { name: 'Internal Dialog (C_model)' });
  await internal.getByLabel('Backend').selectOption('claude_code_cli');
  await internal.getByLabel('Model').fill('sonnet');
  await internal.getByLabel('Backend').selectOption('openai_compatible');
  await expect(internal.getByLabel('Model')).toHaveValue('');
  await expect(internal.getByLabel('Model')).toHaveAttribute('placeholder', /Fetch models, or type one/);
  // A server's own model name stays when switching between servers' backends and back.
  await internal.getByLabel('Model').fill('qwen3');
  await internal.getByLabel('Backend').selectOption('anthropic');
  await expect(internal.getByLabel('Model')).toHaveValue('qwen3');
});
