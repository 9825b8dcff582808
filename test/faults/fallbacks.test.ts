// Fallback models (issue 78 §2) at the level the user lives in: a real Orchestrator and SessionMind,
// real SQLite, the real adapters pointed at the fake servers (and a CLI that exits with a quota
// message). A 429 storm past the retries, a closed port, a server error, an account out of quota:
// the next model answers the same message, once, before anything was said; the session's state
// says which model answers and why; the calls are recorded (and charged) against the backend that
// answered; after the cool-down the first model is asked again. A reply that spoke is never asked
// again, and a model the server does not serve is a setting, not a failover.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\nYou are Iris, curious and kind.' } });

const COOL_DOWN_MS = 1_500;
let primary: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let healthy: FakeOpenAIServer;
let orchestrator: Orchestrator;
let events: EventRecorder;
let scratch: string;
let closedPort = 0;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-fallbacks-'));
  primary = await startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 5 });
  anthropic = await startFakeAnthropicServer({ script: mindScript });
  healthy = await startFakeOpenAIServer({ script: mindScript });
  // A port that was just free: nothing listens there (a local server that is down).
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  orchestrator = new Orchestrator({ retryPolicy: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50, maxRetryAfterMs: 100 }, stallTimeoutMs: 5_000, fallbackCoolDownMs: COOL_DOWN_MS });
  events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
});

afterAll(async () => {
  await orchestrator.stop();
  events.close();
  await Promise.all([primary.close(), anthropic.close(), healthy.close()]);
  fs.rmSync(scratch, { recursive: true, force: true });
});

const openaiLayer = (endpoint: string, model = 'fake-large'): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 1024, endpoint });
const anthropicFallback = { backend: 'anthropic' as const, model: 'claude-sonnet-5-5', max_tokens: 1024, endpoint: '', api_key: 'sk-ant-fake' };
const withFallback = (first: LayerModelConfig): LayerModelConfig => ({ ...first, fallbacks: [{ ...anthropicFallback, endpoint: anthropic.url }] });

async function newSession(cModel: LayerModelConfig) {
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: cModel, s_model: openaiLayer(`${healthy.url}/v1`, 'fake-small') }, params: { pacing: 'adaptive' } });
  return session.id;
}

async function say(sessionId: string, text: string) {
  const before = events.of('turn-end', sessionId).length;
  await orchestrator.sendUserMessage(sessionId, { text });
  return events.waitFor('turn-end', { where: (event) => event.sessionId === sessionId, count: before + 1, timeoutMs: 20_000 });
}

const replies = async (sessionId: string) => (await (await getDb()).message.findMany({ where: { sessionId, tag: 'ED_agent' }, orderBy: { id: 'asc' } })).map((row) => row.content);
const internalCalls = async (sessionId: string) =>
  (await (await getDb()).llmCall.findMany({ where: { sessionId, layer: 'internal' }, orderBy: { id: 'asc' } })).map((row) => ({ backend: row.backend, model: row.model, failed: row.error !== null }));
const anthropicAsked = (text: string) => anthropic.requests.filter((request) => request.lastUserText.includes(text)).length;

describe('fallback models: the next backend answers what the first could not serve', () => {
  it.each([
    ['a 429 storm past the retries', () => primary.failNext({ kind: 'status', status: 429, retryAfter: '0', errorType: 'rate_limit_exceeded' }, 2)],
    ['a server error on every try', () => primary.failNext({ kind: 'status', status: 500 }, 2)],
    ['an account out of quota', () => primary.failNext({ kind: 'status', status: 403, message: 'You exceeded your current quota, please check your plan and billing details.', errorType: 'insufficient_quota' })],
  ])('%s: answered once by the fallback, recorded against it; the first is asked again after the cool-down', async (name, fault) => {
    const sessionId = await newSession(withFallback(openaiLayer(`${primary.url}/v1`)));
    fault();
    const text = `hello through ${name}`;
    const end = await say(sessionId, text);
    expect(end.outcome).toBe('complete');
    expect(await replies(sessionId)).toEqual([`You said: ${text}`]);
    expect(anthropicAsked(text)).toBe(1); // asked once, the whole reply from it
    // Recorded (on PostgreSQL a moment after the turn's end) against the backend that answered.
    await expect.poll(async () => (await internalCalls(sessionId)).at(-1)).toEqual({ backend: 'anthropic', model: 'claude-sonnet-5-5', failed: false });
    const calls = await internalCalls(sessionId);
    expect(calls.filter((call) => call.backend === 'openai_compatible').every((call) => call.failed)).toBe(true);
    // The session's state says which model answers, why, and until when.
    const used = orchestrator.mindState(sessionId)?.fallbacks ?? [];
    expect(used).toEqual([{ layer: 'internal', backend: 'anthropic', model: 'claude-sonnet-5-5', reason: expect.stringContaining('openai_compatible · fake-large'), until: expect.any(String) }]);
    // While it cools down the first model is not asked; after it, it is, and answers again.
    const during = `${name}: during the cool-down`;
    const after = `${name}: after the cool-down`;
    await say(sessionId, during);
    expect(anthropicAsked(during)).toBe(1);
    expect(primary.requests.filter((request) => request.lastUserText.includes(during))).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, COOL_DOWN_MS + 100));
    await say(sessionId, after);
    expect(primary.requests.filter((request) => request.lastUserText.includes(after))).toHaveLength(1);
    expect(anthropicAsked(after)).toBe(0);
    expect(orchestrator.mindState(sessionId)?.fallbacks).toEqual([]);
    await orchestrator.pauseSession(sessionId);
  });

  it('a local server that is down (a closed port) and a CLI out of quota each hand the call on', async () => {
    const down = await newSession(withFallback(openaiLayer(`http://127.0.0.1:${closedPort}/v1`)));
    expect((await say(down, 'is anyone home')).outcome).toBe('complete');
    expect(await replies(down)).toEqual(['You said: is anyone home']);
    await expect.poll(async () => (await internalCalls(down)).at(-1)).toMatchObject({ backend: 'anthropic', failed: false });
    await orchestrator.pauseSession(down);

    const cli = path.join(scratch, 'claude-out-of-quota');
    fs.writeFileSync(cli, '#!/bin/sh\necho "Claude AI usage limit reached|1767225600" >&2\nexit 1\n', { mode: 0o755 });
    const quota = await newSession(withFallback({ backend: 'claude_code_cli', model: 'sonnet', max_tokens: 1024, cli_path: cli }));
    expect((await say(quota, 'the subscription ran out')).outcome).toBe('complete');
    expect(await replies(quota)).toEqual(['You said: the subscription ran out']);
    expect(orchestrator.mindState(quota)?.fallbacks?.[0]).toMatchObject({ backend: 'anthropic', reason: expect.stringMatching(/out of quota: .*usage limit/) });
    await orchestrator.pauseSession(quota);
  });

  it('a reply that spoke is not asked again; a model the server does not serve is not failed over', async () => {
    const spoke = await newSession(withFallback(openaiLayer(`${primary.url}/v1`)));
    primary.failNext({ kind: 'cut', afterChunks: 3 });
    const end = await say(spoke, 'cut me off mid-word');
    expect(end.outcome).toBe('failed');
    expect(anthropicAsked('cut me off mid-word')).toBe(0);
    expect(orchestrator.mindState(spoke)?.fallbacks).toEqual([]);
    await orchestrator.pauseSession(spoke);

    const unknown = await newSession(withFallback(openaiLayer(`${primary.url}/v1`)));
    primary.failNext({ kind: 'status', status: 404, message: 'model "fake-large" not found, try pulling it first', errorType: 'not_found_error' });
    expect((await say(unknown, 'which model are you')).outcome).toBe('failed');
    expect(anthropicAsked('which model are you')).toBe(0);
    expect(orchestrator.mindState(unknown)?.lastError).toMatchObject({ layer: 'internal', kind: 'model_not_found' });
    await orchestrator.pauseSession(unknown);
  });
});
