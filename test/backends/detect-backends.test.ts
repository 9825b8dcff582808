// The first-run check against real parts: the real `claude` binary (with its own HOME, logged in or
// not), the fake Anthropic API, the fake OpenAI-compatible server standing in for Ollama, and
// closed loopback ports for servers that are not there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectBackends, probeClaudeCli, probeLocalServer } from '@/lib/backends/detect-backends';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';

const cliPath = path.resolve('node_modules/.bin/claude');
let anthropic: FakeAnthropicServer;
let ollama: FakeOpenAIServer;
let home: string;
// Port 9 (discard) is closed on loopback: nothing answers there.
const closed = 'http://127.0.0.1:9/v1';

beforeAll(async () => {
  anthropic = await startFakeAnthropicServer({ script: () => ({ text: 'OK' }), refusedKeys: ['wrong'] });
  ollama = await startFakeOpenAIServer({ models: ['qwen3:8b', 'llama3.2'] });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-detect-'));
});
afterAll(async () => {
  await anthropic.close();
  await ollama.close();
  fs.rmSync(home, { recursive: true, force: true });
});

const bareEnv = () => ({ PATH: process.env.PATH ?? '', HOME: home });

describe('detectBackends', () => {
  it('nothing installed, logged in or running: every option absent or not ready, each with its step', async () => {
    const report = await detectBackends({ cliPath: '/no/such/claude', env: bareEnv(), ollamaEndpoint: closed, lmStudioEndpoint: closed });
    expect(report.usable).toBe(false);
    expect(report.claude_cli).toMatchObject({ status: 'absent', step: expect.stringContaining('npm install -g @anthropic-ai/claude-code') });
    expect(report.anthropic_api).toMatchObject({ status: 'absent', step: expect.stringContaining('ANTHROPIC_API_KEY') });
    expect(report.local_servers.map((server) => [server.name, server.status])).toEqual([['Ollama', 'absent'], ['LM Studio', 'absent']]);
    expect(report.local_servers[0]!.step).toMatch(/ollama pull/);
  });

  it('a CLI that is installed but not logged in says so and makes no model call', async () => {
    const before = anthropic.requests.length;
    const probe = await probeClaudeCli({ cliPath, env: { ...bareEnv(), ANTHROPIC_BASE_URL: anthropic.url } });
    expect(probe).toMatchObject({ status: 'not_ready', version: '2.1.330', message: expect.stringContaining('not logged in'), step: expect.stringContaining('log in') });
    // (It may check connectivity with HEAD /api/hello; it sends no model call.)
    expect(anthropic.requests.slice(before).filter((request) => request.path === '/v1/messages')).toEqual([]);
  });

  it('a logged-in CLI is proved by one tiny call; a key is proved by the free models list; Ollama by its models', async () => {
    const report = await detectBackends({
      cliPath,
      env: { ...bareEnv(), ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'dummy-key' },
      anthropicApiKey: 'dummy-key',
      anthropicBaseURL: anthropic.url,
      ollamaEndpoint: `${ollama.url}/v1`,
      lmStudioEndpoint: closed,
    });
    expect(report.claude_cli).toMatchObject({ status: 'ready', message: expect.stringMatching(/answered in \d+ ms/) });
    expect(anthropic.requests.filter((request) => request.path === '/v1/messages').at(-1)?.body).toMatchObject({ model: 'claude-haiku-5-5' });
    expect(report.anthropic_api).toMatchObject({ status: 'ready', message: 'ANTHROPIC_API_KEY works (3 models)' });
    expect(report.local_servers[0]).toMatchObject({ name: 'Ollama', status: 'ready', models: ['llama3.2', 'qwen3:8b'] });
    expect(report.usable).toBe(true);
  });

  it('a key the API refuses is not ready, with the reason', async () => {
    const report = await detectBackends({ cliPath: '/no/such/claude', env: bareEnv(), anthropicApiKey: 'wrong', anthropicBaseURL: anthropic.url, ollamaEndpoint: closed, lmStudioEndpoint: closed });
    expect(report.anthropic_api).toMatchObject({ status: 'not_ready', message: expect.stringContaining('invalid x-api-key') });
  });

  it('a server with no model pulled is not ready', async () => {
    const empty = await startFakeOpenAIServer({ models: [] });
    try {
      expect(await probeLocalServer('Ollama', `${empty.url}/v1`)).toMatchObject({ status: 'not_ready', message: expect.stringContaining('has no model') });
    } finally {
      await empty.close();
    }
  });
});
