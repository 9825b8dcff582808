import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendRequest } from '@/lib/backends/model-backend';
import { normaliseBaseURL, OpenAICompatibleBackend } from '@/lib/backends/openai-compatible-backend';
import { ThinkTagSplitter } from '@/lib/backends/think-tag-splitter';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import type { FakeFault } from '@/test/fakes/fake-server-core';
import { collectParts, errorOf, reasoningOf, textOf } from '@/test/support/collect';

let fake: FakeOpenAIServer;
const request = (content = 'hi'): BackendRequest => ({ system: [{ text: 'Be brief.' }], messages: [{ role: 'user', content }], model: 'fake-small', maxTokens: 64 });
const signal = () => new AbortController().signal;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ script: (r) => ({ text: `Answer: ${r.lastUserText}`, reasoning: r.lastUserText === 'reason' ? 'thinking hard' : undefined }) });
});
afterAll(() => fake.close());

describe('base URL', () => {
  it.each([
    ['http://localhost:11434', 'http://localhost:11434/v1'],
    ['http://localhost:11434/', 'http://localhost:11434/v1'],
    ['http://localhost:1234/v1', 'http://localhost:1234/v1'],
    ['http://localhost:1234/v1/', 'http://localhost:1234/v1'],
    ['https://example.com/openai/v1', 'https://example.com/openai/v1'],
  ])('%s → %s', (typed, expected) => {
    expect(normaliseBaseURL(typed)).toBe(expected);
  });
});

describe('OpenAI-compatible backend against the fake server', () => {
  it('works with Ollama-style URLs typed without /v1: text, usage, finish, system message, include_usage', async () => {
    const backend = new OpenAICompatibleBackend({ endpoint: fake.url });
    const parts = await collectParts(backend.stream(request('hello'), signal()));
    expect(textOf(parts)).toBe('Answer: hello');
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number), costUsd: 'unknown' } });
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop', rawReason: 'stop' });
    const body = fake.requests.at(-1)!.body as { messages: { role: string }[]; stream_options: unknown; max_tokens: number };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(64);
  });

  it.each(['reasoning_content', 'reasoning', 'think-tag'] as const)('keeps %s reasoning out of the reply', async (style) => {
    fake.reasoningStyle = style;
    const parts = await collectParts(new OpenAICompatibleBackend({ endpoint: `${fake.url}/v1` }).stream(request('reason'), signal()));
    expect(reasoningOf(parts)).toBe('thinking hard');
    expect(textOf(parts)).toBe('Answer: reason');
  });

  it.each([
    [{ kind: 'status', status: 429, retryAfter: '2' } as FakeFault, 'rate_limited'],
    [{ kind: 'status', status: 500 } as FakeFault, 'server'],
    [{ kind: 'status', status: 401, message: 'bad key' } as FakeFault, 'authentication'],
    [{ kind: 'status', status: 404, message: 'model "nope" not found' } as FakeFault, 'model_not_found'],
    [{ kind: 'status', status: 404, message: '404 page not found' } as FakeFault, 'not_found'],
    [{ kind: 'status', status: 400, message: "This model's maximum context length is 4096 tokens" } as FakeFault, 'prompt_too_long'],
    [{ kind: 'reset' } as FakeFault, 'connection'],
  ])('maps %j to %s with the provider message', async (fault, kind) => {
    fake.failNext(fault);
    const error = errorOf(await collectParts(new OpenAICompatibleBackend({ endpoint: fake.url }).stream(request(), signal())));
    expect(error?.kind).toBe(kind);
    if (fault.kind === 'status' && fault.message !== undefined) expect(error?.message).toContain(fault.message);
    if (fault.kind === 'status' && fault.retryAfter) expect(error?.retryAfterMs).toBe(2000);
  });

  it('never finishes a reply that was cut, malformed or errored mid-stream', async () => {
    // The kind decides what happens next: a lost connection is retried (unless words were shown already); a malformed stream, or an error event the server sent mid-stream, is not.
    const expected = { cut: { kind: 'connection', isRetryable: true }, malformed: { kind: 'protocol', isRetryable: false }, 'stream-error': { kind: 'stream_interrupted', isRetryable: false } };
    for (const fault of [{ kind: 'cut', afterChunks: 2 }, { kind: 'malformed', afterChunks: 1 }, { kind: 'stream-error', afterChunks: 1 }] as const) {
      fake.failNext(fault);
      const parts = await collectParts(new OpenAICompatibleBackend({ endpoint: fake.url }).stream(request('a longer answer'), signal()));
      expect(errorOf(parts), fault.kind).toMatchObject(expected[fault.kind]);
      expect(parts.some((part) => part.type === 'finish')).toBe(false);
    }
  });

  it('reports a refused connection plainly', async () => {
    const error = errorOf(await collectParts(new OpenAICompatibleBackend({ endpoint: 'http://127.0.0.1:9' }).stream(request(), signal())));
    expect(error).toMatchObject({ kind: 'connection', message: expect.stringContaining('Cannot reach http://127.0.0.1:9/v1') });
  });

  it('ends quietly on abort mid-stream and on a hang', async () => {
    fake.chunkDelayMs = 20;
    const controller = new AbortController();
    let count = 0;
    for await (const part of new OpenAICompatibleBackend({ endpoint: fake.url }).stream(request('long enough to abort'), controller.signal)) {
      expect(part.type).not.toBe('error');
      if (++count === 2) controller.abort();
    }
    fake.chunkDelayMs = 0;
    fake.failNext({ kind: 'hang' });
    const hung = new AbortController();
    setTimeout(() => hung.abort(), 200);
    expect(await collectParts(new OpenAICompatibleBackend({ endpoint: fake.url }).stream(request(), hung.signal))).toEqual([]);
  });

  it('lists models for the settings form', async () => {
    expect(await new OpenAICompatibleBackend({ endpoint: fake.url }).listModels(signal())).toEqual([{ id: 'fake-large' }, { id: 'fake-small' }]);
  });

  it("Ollama's answer for a model that was never pulled is a model_not_found, not a retry", async () => {
    fake.failNext({ kind: 'status', status: 404, message: 'model "llama9" not found, try pulling it first' });
    expect(errorOf(await collectParts(new OpenAICompatibleBackend({ endpoint: fake.url }).stream(request(), signal())))).toMatchObject({ kind: 'model_not_found', isRetryable: false });
  });
});

describe('think-tag splitter', () => {
  it('holds a tag split across chunks and never leaks it', () => {
    const splitter = new ThinkTagSplitter();
    const parts = [...splitter.push('Hi <th'), ...splitter.push('ink>secret</thi'), ...splitter.push('nk> there <'), ...splitter.flush()];
    const text = parts.filter((part) => part.type === 'text-delta').map((part) => part.text).join('');
    const reasoning = parts.filter((part) => part.type === 'reasoning-delta').map((part) => part.text).join('');
    expect(text).toBe('Hi  there <');
    expect(reasoning).toBe('secret');
  });
});
