// A new user's first run, on a server of its own: with nothing to answer (the CLI installed but
// not logged in, no API key, no local server) the home page shows the setup card with a step per
// option; once a local server answers on the Ollama address it is detected, one click puts it on
// both layers, and a session created next answers. Also: a session exported, then imported from
// the home page, and a deprecated model's banner with its one-click switch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../test/fakes/fake-openai-server';
import { mindScript } from '../test/fakes/mind-script';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';
import { spawnServer, type SpawnedServer } from './support/spawn-server';

const port = Number(process.env.E2E_FIRST_RUN_PORT ?? 3214);
// Where this server looks for Ollama (AGENTCSD_OLLAMA_URL): a port of our own, so a developer's
// real Ollama on 11434 cannot change the outcome.
const ollamaPort = Number(process.env.E2E_OLLAMA_PORT ?? 3215);
const base = `http://127.0.0.1:${port}`;
let server: SpawnedServer;
let ollama: FakeOpenAIServer | undefined;

test.use({ baseURL: base, extraHTTPHeaders: { origin: base } });

test.beforeAll(async () => {
  const root = 'test-results/e2e-first-run';
  fs.rmSync(root, { recursive: true, force: true });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-first-run-home-'));
  server = await spawnServer({
    root,
    port,
    env: {
      // The real `claude` is on PATH (node_modules/.bin) but this HOME has no login.
      HOME: home,
      ANTHROPIC_API_KEY: '',
      CLAUDE_CODE_OAUTH_TOKEN: '',
      AGENTCSD_OLLAMA_URL: `http://127.0.0.1:${ollamaPort}/v1`,
      AGENTCSD_LMSTUDIO_URL: 'http://127.0.0.1:9/v1',
    },
  });
});

test.afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  await ollama?.close();
});

test('nothing can answer: the setup card; a local server appears: one click, and a new session answers', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  const models = page.getByRole('region', { name: 'Models' });
  const card = page.getByRole('region', { name: 'Set up a model' });
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText('Nothing can answer yet');
  await expect(card).toContainText('Claude Code CLI: Claude Code CLI 2.1.330 is installed but not logged in');
  await expect(card).toContainText('Run `claude` in a terminal and log in');
  await expect(card).toContainText('Set ANTHROPIC_API_KEY');
  await expect(card).toContainText('ollama pull');
  await expect(card).toContainText('LM Studio');
  await expect(card.getByRole('button', { name: /^Use .* for both layers$/ })).toHaveCount(0);
  await saveScreenshot(page, 'home-first-run');

  ollama = await startFakeOpenAIServer({ port: ollamaPort, script: mindScript, models: ['fake-large', 'fake-small'] });
  await models.getByRole('button', { name: 'Check again' }).click();
  await expect(models.getByRole('list', { name: 'Backends found' })).toContainText('Ollama: 2 models');
  await card.getByLabel('Ollama model').selectOption('fake-small');
  await card.getByRole('button', { name: 'Use Ollama for both layers' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Both layers now use Ollama (fake-small)' })).toBeVisible();
  await expect(card).toHaveCount(0);
  await expect(models).toContainText('Defaults: openai_compatible · fake-small — ready');
  await saveScreenshot(page, 'home-models-ready');

  await home.createSession({ name: 'First words', persona: 'iris' });
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  const session = new SessionPage(page);
  await session.send('Hello there');
  await expect(session.messages.filter({ hasText: 'You said: Hello there' })).toBeVisible();
  const request = ollama.requests.find((entry) => entry.path === '/v1/chat/completions');
  expect(request?.body).toMatchObject({ model: 'fake-small' });
});

test('export a session, then import it from the home page: a new paused session with the same conversation', async ({ page, request }) => {
  const home = new HomePage(page);
  const sessions = (await (await request.get('/api/sessions')).json()).sessions as { id: string; name: string }[];
  const source = sessions.find((session) => session.name === 'First words')!;
  await request.post(`/api/sessions/${source.id}/pause`);
  const exported = await (await request.get(`/api/sessions/${source.id}/export?format=json`)).text();
  const file = path.join(server.dataDir, '..', 'first-words.json');
  fs.writeFileSync(file, exported);

  await home.goto();
  await page.getByLabel('Import session (JSON)').setInputFiles(file);
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  expect(page.url()).not.toContain(source.id);
  await expect(page.getByRole('heading', { name: 'First words', level: 1 })).toBeVisible();
  await expect(page.getByText('paused', { exact: true })).toBeVisible();
  const session = new SessionPage(page);
  await expect(session.messages.filter({ hasText: 'You said: Hello there' })).toBeVisible();

  // A file that is not an export is refused with the reason, and nothing is created.
  const before = (await (await request.get('/api/sessions')).json()).total;
  fs.writeFileSync(file, JSON.stringify({ format: 'agentcsd-session', version: 9 }));
  await home.goto();
  await page.getByLabel('Import session (JSON)').setInputFiles(file);
  await expect(page.getByRole('alert').filter({ hasText: 'unknown export version' })).toBeVisible();
  expect((await (await request.get('/api/sessions')).json()).total).toBe(before);
});

test('a deprecated model shows a banner; one click switches the session to the current model of its line', async ({ page, request }) => {
  const created = await request.post('/api/sessions', {
    data: {
      name: 'Old model',
      persona: 'iris',
      models: { c_model: { backend: 'claude_code_cli', model: 'claude-sonnet-4-5', max_tokens: 256, cli_path: '/nowhere/claude' } },
    },
  });
  expect(created.status()).toBe(201);
  const { session } = await created.json();
  await request.post(`/api/sessions/${session.id}/pause`);
  await page.goto(`/sessions/${session.id}`);
  const banner = page.getByRole('alert', { name: 'Model notice' });
  await expect(banner).toContainText(/Internal Dialog: claude-sonnet-4-5 (is deprecated and reaches|reached) its end of life on 2026-11-30/);
  await saveScreenshot(page, 'session-deprecated-model');
  await banner.getByRole('button', { name: 'Switch to sonnet' }).click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByText('claude_code_cli · sonnet')).toBeVisible();
  await page.getByText('Session settings: pacing, spontaneous speech, models').click();
  await expect(page.getByRole('form', { name: 'Session settings' }).getByRole('group', { name: 'Internal Dialog (C_model)' }).getByLabel('Model')).toHaveValue('sonnet');
  const detail = await (await request.get(`/api/sessions/${session.id}`)).json();
  expect(detail.session.models.c_model).toMatchObject({ backend: 'claude_code_cli', model: 'sonnet', cli_path: '/nowhere/claude' });
});
