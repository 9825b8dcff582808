// Issue 35 §3: a saved key goes only to the endpoint it was saved with; ANTHROPIC_API_KEY only to
// Anthropic's API (or ANTHROPIC_BASE_URL). Two listeners on loopback record every header they
// get: the one a key was saved for gets it (the control), the other gets no key through the
// backends' test and models routes, a session created with its endpoint, an imported session, or
// a settings change that moves a layer there without typing the key again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as backendModels from '@/app/api/backends/models/route';
import * as backendTest from '@/app/api/backends/test/route';
import * as exporter from '@/app/api/sessions/[id]/export/route';
import * as messages from '@/app/api/sessions/[id]/messages/route';
import * as resume from '@/app/api/sessions/[id]/resume/route';
import * as importer from '@/app/api/sessions/import/route';
import * as sessions from '@/app/api/sessions/route';
import * as settings from '@/app/api/settings/route';
import { AnthropicBackend } from '@/lib/backends/anthropic-backend';
import { environmentAnthropicKey, sameKeyScope } from '@/lib/config/key-scope';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\nA test persona.\n' } });

const savedKey = `saved-canary-${process.pid}-c9f1e2`;
const savedAnthropicKey = `saved-anthropic-canary-${process.pid}-77ab`;
const envKey = `env-canary-${process.pid}-5d3e`;

interface Listener {
  url: string;
  headers: string[];
  close(): Promise<void>;
}

async function listen(): Promise<Listener> {
  const headers: string[] = [];
  const server = http.createServer((request, response) => {
    headers.push(JSON.stringify(request.headers));
    request.resume();
    response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'authentication_error', message: 'recorded' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, headers, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let saved: Listener;
let stranger: Listener;
const previousEnv = { key: process.env.ANTHROPIC_API_KEY, base: process.env.ANTHROPIC_BASE_URL };
const base = 'http://127.0.0.1:3000';
const json = (url: string, method: string, body?: unknown) =>
  new Request(`${base}${url}`, { method, headers: { 'content-type': 'application/json', origin: base }, ...(body !== undefined && { body: JSON.stringify(body) }) });
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });
const params = { summary_every_n: 10, pacing: 'continuous', trigger_mode: 'tag', trigger_threshold: 200, spontaneous_cap: 3 };

function leaked(listener: Listener): string[] {
  return listener.headers.filter((line) => [savedKey, savedAnthropicKey, envKey].some((key) => line.includes(key)));
}

beforeAll(async () => {
  process.env.ANTHROPIC_API_KEY = envKey;
  delete process.env.ANTHROPIC_BASE_URL;
  [saved, stranger] = await Promise.all([listen(), listen()]);
  await startOrchestrator({});
  const response = await settings.PUT(
    json('/api/settings', 'PUT', {
      c_model: { backend: 'openai_compatible', model: 'm', max_tokens: 16, endpoint: `${saved.url}/v1`, api_key: savedKey },
      s_model: { backend: 'anthropic', model: 'claude-haiku-4-5', max_tokens: 16, endpoint: saved.url, api_key: savedAnthropicKey },
      params,
    }),
    undefined,
  );
  expect(response.status).toBe(200);
});

afterAll(async () => {
  await stopOrchestrator();
  await Promise.all([saved.close(), stranger.close()]);
  if (previousEnv.key === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = previousEnv.key;
  if (previousEnv.base !== undefined) process.env.ANTHROPIC_BASE_URL = previousEnv.base;
});

describe('a key stays with its endpoint', () => {
  it('the rules: same origin only; the environment key to Anthropic or ANTHROPIC_BASE_URL only', () => {
    expect(sameKeyScope('http://127.0.0.1:1/v1', 'http://127.0.0.1:1/other')).toBe(true);
    expect(sameKeyScope('http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1')).toBe(false);
    expect(sameKeyScope('http://127.0.0.1:1/v1', 'https://127.0.0.1:1/v1')).toBe(false);
    expect(sameKeyScope(undefined, 'http://127.0.0.1:1')).toBe(false);
    expect(sameKeyScope('http://127.0.0.1:1', undefined)).toBe(false);
    expect(sameKeyScope(undefined, undefined)).toBe(true);
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://proxy.example/v1' };
    expect(environmentAnthropicKey(undefined, env)).toBe('k');
    expect(environmentAnthropicKey('https://api.anthropic.com', env)).toBe('k');
    expect(environmentAnthropicKey('https://proxy.example', env)).toBe('k');
    expect(environmentAnthropicKey('http://127.0.0.1:9', env)).toBeUndefined();
    expect(environmentAnthropicKey('https://api.anthropic.com.evil.example', env)).toBeUndefined();
  });

  it('control: the endpoint a key was saved with gets it', async () => {
    await backendTest.POST(json('/api/backends/test', 'POST', { config: { backend: 'openai_compatible', model: 'm', max_tokens: 16, endpoint: `${saved.url}/v1` }, use_stored_key_of: 'c_model' }), undefined);
    await backendTest.POST(json('/api/backends/test', 'POST', { config: { backend: 'anthropic', model: 'claude-haiku-4-5', max_tokens: 16, endpoint: saved.url }, use_stored_key_of: 's_model' }), undefined);
    expect(saved.headers.join('\n')).toContain(savedKey);
    expect(saved.headers.join('\n')).toContain(savedAnthropicKey);
  });

  it('test and models with another endpoint carry no saved or environment key', async () => {
    for (const route of [backendTest, backendModels]) {
      for (const layer of ['c_model', 's_model'] as const) {
        for (const backend of ['openai_compatible', 'anthropic'] as const) {
          const endpoint = backend === 'openai_compatible' ? `${stranger.url}/v1` : stranger.url;
          const before = stranger.headers.length;
          const response = await route.POST(json('/api/backends/test', 'POST', { config: { backend, model: 'm', max_tokens: 16, endpoint }, use_stored_key_of: layer }), undefined);
          expect(response.status).toBe(200);
          const answer = JSON.stringify(await response.json());
          const where = `${route === backendTest ? 'test' : 'models'} ${layer} ${backend}`;
          // The OpenAI-compatible call reaches the other endpoint once, keyless (the server says 401);
          // the Anthropic one asks nothing of it without a key of its own, and says why.
          if (backend === 'openai_compatible') expect([stranger.headers.length - before, answer.includes('401')], where).toEqual([1, true]);
          else expect([stranger.headers.length - before, answer.includes('ANTHROPIC_API_KEY is only sent to https://api.anthropic.com')], where).toEqual([0, true]);
        }
      }
    }
    expect(leaked(stranger)).toEqual([]);
  });

  it('the Anthropic backend sends the environment key to no other endpoint, and says why', async () => {
    const backend = new AnthropicBackend({ baseURL: stranger.url });
    const parts = [];
    for await (const part of backend.stream({ model: 'claude-haiku-4-5', system: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 8 } as never, new AbortController().signal)) parts.push(part);
    expect(JSON.stringify(parts)).toContain('ANTHROPIC_API_KEY is only sent to https://api.anthropic.com');
    expect(leaked(stranger)).toEqual([]);
  });

  it('a session created on another endpoint, and its import, run without any key', async () => {
    const created = await sessions.POST(
      json('/api/sessions', 'POST', {
        persona: 'iris',
        name: 'Listener',
        models: {
          c_model: { backend: 'openai_compatible', model: 'm', max_tokens: 16, endpoint: `${stranger.url}/v1` },
          s_model: { backend: 'anthropic', model: 'claude-haiku-4-5', max_tokens: 16, endpoint: stranger.url },
        },
      }),
      undefined,
    );
    expect(created.status).toBe(201);
    const { session } = await created.json();
    const before = stranger.headers.length;
    expect((await messages.POST(json(`/api/sessions/${session.id}/messages`, 'POST', { text: 'hello' }), idContext(session.id))).status).toBe(202);
    await expect.poll(() => stranger.headers.length, { timeout: 15_000 }).toBeGreaterThan(before);

    const exported = await (await exporter.GET(new Request(`${base}/api/sessions/${session.id}/export?format=json`), idContext(session.id))).json();
    const imported = await importer.POST(new Request(`${base}/api/sessions/import`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify(exported) }), undefined);
    expect(imported.status).toBe(201);
    const copy = (await imported.json()).session;
    await resume.POST(json(`/api/sessions/${copy.id}/resume`, 'POST'), idContext(copy.id));
    const afterImport = stranger.headers.length;
    expect((await messages.POST(json(`/api/sessions/${copy.id}/messages`, 'POST', { text: 'hello again' }), idContext(copy.id))).status).toBe(202);
    await expect.poll(() => stranger.headers.length, { timeout: 15_000 }).toBeGreaterThan(afterImport);
    expect(leaked(stranger)).toEqual([]);
  }, 40_000);

  it('a settings change moving a layer to another endpoint drops the saved key unless it is typed again', async () => {
    const moved = await settings.PUT(
      json('/api/settings', 'PUT', {
        c_model: { backend: 'openai_compatible', model: 'm', max_tokens: 16, endpoint: `${stranger.url}/v1` },
        s_model: { backend: 'anthropic', model: 'claude-haiku-4-5', max_tokens: 16, endpoint: stranger.url },
        params,
      }),
      undefined,
    );
    const body = await moved.json();
    expect(body.settings.c_model.api_key_set).toBe(false);
    expect(body.settings.s_model.api_key_set).toBe(false);
    await backendTest.POST(json('/api/backends/test', 'POST', { config: { backend: 'openai_compatible', model: 'm', max_tokens: 16, endpoint: `${stranger.url}/v1` }, use_stored_key_of: 'c_model' }), undefined);
    expect(leaked(stranger)).toEqual([]);
  });
});
