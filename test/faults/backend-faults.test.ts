// The backend-fault matrix at the level the user lives in: a real Orchestrator and SessionMind,
// real SQLite, the real adapters (and the real `claude` binary) pointed at the fake servers,
// which inject each fault into the Internal Dialog's calls while the Subconscious runs on a
// healthy fake. For every fault: the reason reaches the events the UI renders, no partial reply
// is stored as complete, the next message is answered and the loop keeps cycling, and no child
// process outlives its call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import type { FakeFault } from '@/test/fakes/fake-server-core';
import { mindScript } from '@/test/fakes/mind-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { descendantPids } from '@/test/support/processes';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\nYou are Iris, curious and kind.' } });

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let healthy: FakeOpenAIServer;
let orchestrator: Orchestrator;
let events: EventRecorder;
let scratch: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-faults-'));
  // 10 ms between deltas: a reply streams long enough to be cut or killed mid-way.
  openai = await startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 10 });
  anthropic = await startFakeAnthropicServer({ script: mindScript, chunkDelayMs: 10 });
  healthy = await startFakeOpenAIServer({ script: mindScript });
  // The CLI reads these from the environment it inherits: the fake API, a HOME of its own.
  Object.assign(process.env, { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'dummy-key', HOME: scratch });
  orchestrator = new Orchestrator({ retryPolicy: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200, maxRetryAfterMs: 2_000 }, stallTimeoutMs: 5_000 });
  events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
});

afterAll(async () => {
  await orchestrator.stop();
  events.close();
  await Promise.all([openai.close(), anthropic.close(), healthy.close()]);
  process.env = savedEnv;
  fs.rmSync(scratch, { recursive: true, force: true });
});

const openaiLayer = (server: { url: string }, endpoint = `${server.url}/v1`): LayerModelConfig => ({ backend: 'openai_compatible', model: 'fake-large', max_tokens: 1024, endpoint });
const anthropicLayer = (): LayerModelConfig => ({ backend: 'anthropic', model: 'claude-sonnet-4-5', max_tokens: 1024, endpoint: anthropic.url, api_key: 'sk-ant-fake' });
const cliLayer = (cliPath = path.resolve('node_modules/.bin/claude')): LayerModelConfig => ({ backend: 'claude_code_cli', model: 'claude-sonnet-4-5', max_tokens: 1024, cli_path: cliPath });

async function agentRows(sessionId: string) {
  const db = await getDb();
  return db.message.findMany({ where: { sessionId, tag: 'ED_agent' }, orderBy: { id: 'asc' } });
}

async function newSession(cModel: LayerModelConfig) {
  const session = await orchestrator.createSession({
    persona: 'iris',
    models: { c_model: cModel, s_model: openaiLayer(healthy) },
    params: { pacing: 'adaptive' },
  });
  return session.id;
}

/** Sends a message and returns its turn's end. */
async function say(sessionId: string, text: string, options: { timeoutMs?: number; duringReply?: () => void } = {}) {
  const before = events.of('turn-end', sessionId).length;
  await orchestrator.sendUserMessage(sessionId, { text });
  if (options.duringReply) {
    await events.waitFor('reply-delta', { where: (event) => event.sessionId === sessionId, count: events.of('reply-delta', sessionId).length + 1, timeoutMs: 20_000 });
    options.duringReply();
  }
  return events.waitFor('turn-end', { where: (event) => event.sessionId === sessionId, count: before + 1, timeoutMs: options.timeoutMs ?? 20_000 });
}

/** After the fault: the next message gets a whole reply, and the Subconscious kept cycling. */
async function expectRecovered(sessionId: string) {
  const cyclesBefore = events.of('subconscious-output', sessionId).length;
  const end = await say(sessionId, 'are you still there?');
  expect(end.outcome).toBe('complete');
  const last = (await agentRows(sessionId)).at(-1)!;
  expect(last).toMatchObject({ content: 'You said: are you still there?', interrupted: false });
  await events.waitFor('subconscious-output', { where: (event) => event.sessionId === sessionId, count: cyclesBefore + 1, timeoutMs: 20_000 });
  expect(orchestrator.mindState(sessionId)?.lastError).toBeNull();
  await orchestrator.pauseSession(sessionId);
}

type Server = 'openai' | 'anthropic';
const server = (name: Server) => (name === 'openai' ? openai : anthropic);
const layerOf = (name: Server) => (name === 'openai' ? openaiLayer(openai) : anthropicLayer());

describe('faults an API backend retries: the wait is shown, then the reply arrives whole', () => {
  it.each<[string, Server, FakeFault]>([
    ['429 with retry-after', 'openai', { kind: 'status', status: 429, retryAfter: '1', errorType: 'rate_limit_exceeded' }],
    ['429 with retry-after', 'anthropic', { kind: 'status', status: 429, retryAfter: '1', errorType: 'rate_limit_error' }],
    ['529 overloaded', 'anthropic', { kind: 'status', status: 529, errorType: 'overloaded_error' }],
    ['500', 'openai', { kind: 'status', status: 500 }],
    ['500', 'anthropic', { kind: 'status', status: 500, errorType: 'api_error' }],
    ['connection reset', 'openai', { kind: 'reset' }],
  ])('%s (%s)', async (_name, name, fault) => {
    const sessionId = await newSession(layerOf(name));
    server(name).failNext(fault);
    const end = await say(sessionId, 'hello through the storm');
    expect(end.outcome).toBe('complete');
    const shown = events.of('error', sessionId).filter((event) => event.layer === 'internal');
    expect(shown).toHaveLength(1);
    expect(shown[0]!.retryInMs).toBeGreaterThan(0);
    expect(shown[0]!.message).toMatch(/retrying in/);
    expect((await agentRows(sessionId)).map((row) => [row.content, row.interrupted])).toEqual([['You said: hello through the storm', false]]);
    await expectRecovered(sessionId);
  });
});

describe('faults that end the reply: the reason is shown, nothing partial is stored as complete', () => {
  it.each<[string, Server, FakeFault, RegExp]>([
    ['401', 'openai', { kind: 'status', status: 401, message: 'Invalid API key' }, /401|Invalid API key|auth/i],
    ['401', 'anthropic', { kind: 'status', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' }, /invalid x-api-key|auth/i],
    ['400', 'openai', { kind: 'status', status: 400, message: 'bad request from fake' }, /bad request from fake/],
    ['400', 'anthropic', { kind: 'status', status: 400, errorType: 'invalid_request_error', message: 'bad request from fake' }, /bad request from fake/],
    ['a hang', 'openai', { kind: 'hang' }, /sent nothing for 5 s/],
    ['a hang', 'anthropic', { kind: 'hang' }, /sent nothing for 5 s/],
  ])('%s (%s)', async (_name, name, fault, reason) => {
    const sessionId = await newSession(layerOf(name));
    server(name).failNext(fault, 3);
    const end = await say(sessionId, 'this will not go well');
    while (server(name).takeFault()) {
      // leftovers of a fault that was not retried
    }
    expect(end.outcome).toBe('failed');
    expect(end.error).toMatch(reason);
    expect(orchestrator.mindState(sessionId)?.lastError?.message).toMatch(reason);
    expect(await agentRows(sessionId)).toEqual([]);
    await expectRecovered(sessionId);
  });

  // The kind is what decides a retry: a lost connection or an overloaded server would be retried,
  // but not once words were shown (the reply would say them twice) — so each is one request.
  it.each<[string, Server, FakeFault, string]>([
    ['a stream cut mid-way', 'openai', { kind: 'cut', afterChunks: 6 }, 'connection'],
    ['a stream cut mid-way', 'anthropic', { kind: 'cut', afterChunks: 6 }, 'connection'],
    ['a malformed event mid-stream', 'openai', { kind: 'malformed', afterChunks: 6 }, 'protocol'],
    ['a malformed event mid-stream', 'anthropic', { kind: 'malformed', afterChunks: 6 }, 'protocol'],
    ['an error event mid-stream', 'anthropic', { kind: 'stream-error', afterChunks: 6, errorType: 'overloaded_error', message: 'Overloaded' }, 'overloaded'],
  ])('%s (%s): what was said is kept, marked interrupted, not retried', async (_name, name, fault, kind) => {
    const sessionId = await newSession(layerOf(name));
    server(name).failNext(fault);
    const before = server(name).requests.filter((request) => request.lastUserText.includes('a reply that breaks')).length;
    const end = await say(sessionId, 'a reply that breaks');
    expect(end.outcome).toBe('failed');
    expect(orchestrator.mindState(sessionId)?.lastError).toMatchObject({ layer: 'internal', kind, message: end.error });
    expect(server(name).requests.filter((request) => request.lastUserText.includes('a reply that breaks')).length - before).toBe(1);
    const rows = await agentRows(sessionId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.interrupted).toBe(true);
    expect('You said: a reply that breaks'.startsWith(rows[0]!.content)).toBe(true);
    expect(rows[0]!.content.length).toBeLessThan('You said: a reply that breaks'.length);
    await expectRecovered(sessionId);
  });

  it('connection refused: the reason is shown; pointing the layer at a live server heals it', async () => {
    const sessionId = await newSession(openaiLayer(openai, 'http://127.0.0.1:9/v1'));
    const end = await say(sessionId, 'anyone home?');
    expect(end.outcome).toBe('failed');
    expect(end.error).toMatch(/Cannot reach http:\/\/127.0.0.1:9\/v1/);
    expect(await agentRows(sessionId)).toEqual([]);
    await orchestrator.updateSession(sessionId, { models: { c_model: openaiLayer(openai) } });
    await expectRecovered(sessionId);
  });
});

describe('Claude Code CLI faults (the real binary against the fake API)', () => {
  // The real CLI starts a Node process of its own: on a loaded machine (two test files at once, one
  // of them a Chromium) it can take longer than the 5 s the hang cases above use to say anything,
  // and a 400 then read as a stall. Its own mind here waits as long as production's would need to.
  beforeAll(async () => {
    await orchestrator.stop();
    events.close();
    orchestrator = new Orchestrator({ retryPolicy: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200, maxRetryAfterMs: 2_000 }, stallTimeoutMs: 30_000 });
    events = new EventRecorder(orchestrator.bus);
    await orchestrator.start();
  });

  it('the CLI missing: the path is named, the Subconscious keeps going', async () => {
    const sessionId = await newSession(cliLayer('/nowhere/claude'));
    const end = await say(sessionId, 'hello?');
    expect(end.outcome).toBe('failed');
    expect(end.error).toMatch(/Claude Code CLI not found at "\/nowhere\/claude"/);
    await orchestrator.updateSession(sessionId, { models: { c_model: openaiLayer(openai) } });
    await expectRecovered(sessionId);
  });

  it('the CLI exiting 1 on an API error: the API message is shown, no child survives', async () => {
    const sessionId = await newSession(cliLayer());
    anthropic.failNext({ kind: 'status', status: 400, errorType: 'invalid_request_error', message: 'bad request from fake' }, 5);
    const end = await say(sessionId, 'this will fail', { timeoutMs: 60_000 });
    while (anthropic.takeFault()) {
      // the CLI does not retry a 400
    }
    expect(end.outcome).toBe('failed');
    expect(end.error).toMatch(/bad request from fake|400/);
    expect(await agentRows(sessionId)).toEqual([]);
    expect(descendantPids('claude')).toEqual([]);
    // The CLI itself answers the next message.
    const next = await say(sessionId, 'and now?', { timeoutMs: 60_000 });
    expect(next.outcome).toBe('complete');
    expect((await agentRows(sessionId)).at(-1)).toMatchObject({ content: 'You said: and now?', interrupted: false });
    await orchestrator.pauseSession(sessionId);
  }, 120_000);

  it('the CLI killed mid-reply: the part said is kept as interrupted, the reason shown, no child survives', async () => {
    const sessionId = await newSession(cliLayer());
    const text = 'please give me a long answer about tides and moons and the sea at night';
    const end = await say(sessionId, text, {
      timeoutMs: 60_000,
      duringReply: () => {
        for (const pid of descendantPids('claude')) process.kill(pid, 'SIGKILL');
      },
    });
    expect(end.outcome).toBe('failed');
    expect(end.error).toMatch(/SIGKILL|killed|exited/i);
    const rows = await agentRows(sessionId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.interrupted).toBe(true);
    expect(`You said: ${text}`.startsWith(rows[0]!.content)).toBe(true);
    expect(descendantPids('claude')).toEqual([]);
    await orchestrator.updateSession(sessionId, { models: { c_model: openaiLayer(openai) } });
    await expectRecovered(sessionId);
  }, 120_000);
});
