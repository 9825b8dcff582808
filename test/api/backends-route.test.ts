import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as available from '@/app/api/backends/available/route';
import * as models from '@/app/api/backends/models/route';
import * as settings from '@/app/api/settings/route';
import * as backendTest from '@/app/api/backends/test/route';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await startFakeOpenAIServer({ script: () => ({ text: 'OK' }) });
});
afterAll(() => fake.close());

const post = (body: unknown) =>
  new Request('http://127.0.0.1:3000/api/backends/test', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const config = (extra: object = {}) => ({ backend: 'openai_compatible', model: 'fake-small', max_tokens: 16, endpoint: fake.url, ...extra });

describe('POST /api/backends/test', () => {
  it('reports ok with the latency', async () => {
    const report = await (await backendTest.POST(post({ config: config() }), undefined)).json();
    expect(report).toMatchObject({ ok: true, reply: 'OK', latency_ms: expect.any(Number) });
  });

  it('says so when the server answered for a model it does not list (issue 75 §9)', async () => {
    const report = await (await backendTest.POST(post({ config: config({ model: 'sonnet' }) }), undefined)).json();
    expect(report).toMatchObject({ ok: true, warning: expect.stringContaining('does not list “sonnet”') });
    expect((await (await backendTest.POST(post({ config: config() }), undefined)).json()).warning).toBeUndefined();
  });

  it('reports the exact provider error', async () => {
    fake.failNext({ kind: 'status', status: 401, message: 'Incorrect API key provided' });
    const report = await (await backendTest.POST(post({ config: config() }), undefined)).json();
    expect(report).toMatchObject({ ok: false, error: { kind: 'authentication', status: 401, message: 'Incorrect API key provided' } });
  });

  it('reports a server that is not there, and a missing CLI', async () => {
    const refused = await (await backendTest.POST(post({ config: config({ endpoint: 'http://127.0.0.1:9' }) }), undefined)).json();
    expect(refused).toMatchObject({ ok: false, error: { kind: 'connection' } });
    const cli = await (await backendTest.POST(post({ config: { backend: 'claude_code_cli', model: 'claude-haiku-4-5', max_tokens: 16, cli_path: '/no/such/claude' } }), undefined)).json();
    expect(cli).toMatchObject({ ok: false, error: { kind: 'cli_missing', message: expect.stringContaining('Claude Code CLI not found') } });
  });

  it('validates the config', async () => {
    const response = await backendTest.POST(post({ config: { backend: 'openai_compatible', model: '', max_tokens: 16 } }), undefined);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('validation_failed');
  });

  it('lists models of an OpenAI-compatible server', async () => {
    const result = await (await models.POST(post({ config: config() }), undefined)).json();
    expect(result.models).toEqual([{ id: 'fake-large' }, { id: 'fake-small' }]);
  });

  it('lists the CLI aliases first, then the ids it accepts, deprecated ones with their end of life', async () => {
    const result = await (await models.POST(post({ config: { backend: 'claude_code_cli', model: 'sonnet', max_tokens: 16 } }), undefined)).json();
    expect(result.models.slice(0, 2).map((model: { id: string }) => model.id)).toEqual(['sonnet', 'haiku']);
    expect(result.models).toContainEqual({ id: 'claude-sonnet-4-5', end_of_life: '2026-11-30' });
  });
});

describe('/api/backends/available', () => {
  it('says what answers and whether the defaults can; a settings change is checked again', async () => {
    const saved = { ...process.env };
    process.env.AGENTCSD_OLLAMA_URL = `${fake.url}/v1`;
    process.env.AGENTCSD_LMSTUDIO_URL = 'http://127.0.0.1:9/v1';
    process.env.ANTHROPIC_API_KEY = '';
    try {
      const settingsBody = (model: string) => ({
        c_model: { backend: 'openai_compatible', model, max_tokens: 64, endpoint: `${fake.url}/v1` },
        s_model: { backend: 'openai_compatible', model, max_tokens: 64, endpoint: `${fake.url}/v1` },
        params: { summary_every_n: 10, pacing: 'adaptive', trigger_mode: 'tag', trigger_threshold: 200, spontaneous_cap: 3 },
      });
      const put = (body: unknown) => settings.PUT(new Request('http://127.0.0.1:3000/api/settings', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), undefined);
      expect((await put(settingsBody('fake-small'))).status).toBe(200);
      const first = (await (await available.GET(new Request('http://127.0.0.1:3000/api/backends/available'), undefined)).json()).availability;
      expect(first.local_servers[0]).toMatchObject({ name: 'Ollama', status: 'ready', models: ['fake-large', 'fake-small'] });
      expect(first.local_servers[1]).toMatchObject({ name: 'LM Studio', status: 'absent' });
      expect(first.anthropic_api.status).toBe('absent');
      expect(first.defaults).toMatchObject({ status: 'ready', backend: 'openai_compatible', model: 'fake-small' });
      expect(first.usable).toBe(true);

      expect((await put(settingsBody('never-pulled'))).status).toBe(200);
      const again = (await (await available.GET(new Request('http://127.0.0.1:3000/api/backends/available'), undefined)).json()).availability;
      expect(again.defaults).toMatchObject({ status: 'not_ready', message: expect.stringContaining('does not list never-pulled') });
      const forced = await available.POST(new Request('http://127.0.0.1:3000/api/backends/available', { method: 'POST' }), undefined);
      expect(forced.status).toBe(200);
      expect(Date.parse((await forced.json()).availability.checked_at)).toBeGreaterThanOrEqual(Date.parse(again.checked_at));
    } finally {
      process.env = saved;
    }
  });
});
