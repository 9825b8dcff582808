import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicBackend } from '@/lib/backends/anthropic-backend';
import type { BackendRequest } from '@/lib/backends/model-backend';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import type { FakeFault } from '@/test/fakes/fake-server-core';
import { collectParts, errorOf, reasoningOf, textOf } from '@/test/support/collect';

let fake: FakeAnthropicServer;
let backend: AnthropicBackend;

const persona = 'You are Iris. '.repeat(1300); // over Haiku 4.5's 4,096-token minimum for caching
const request = (content = 'hello'): BackendRequest => ({
  system: [{ text: persona, cache: true }, { text: 'Mood: calm' }],
  messages: [{ role: 'user', content }],
  model: 'claude-haiku-4-5',
  maxTokens: 256,
});
const signal = () => new AbortController().signal;

beforeAll(async () => {
  fake = await startFakeAnthropicServer({ script: (r) => ({ text: `Reply to ${r.lastUserText}`, reasoning: r.lastUserText === 'think' ? 'Let me think.' : undefined }) });
  backend = new AnthropicBackend({ apiKey: 'test-key', baseURL: fake.url });
});
afterAll(() => fake.close());

describe('Anthropic backend against the fake Messages API', () => {
  it('streams text, then usage and a normalised finish', async () => {
    const parts = await collectParts(backend.stream(request('hello'), signal()));
    expect(textOf(parts)).toBe('Reply to hello');
    expect(parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThan(1);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop', rawReason: 'end_turn' });
    const usage = parts.find((part) => part.type === 'usage');
    expect(usage).toMatchObject({ type: 'usage', usage: { outputTokens: expect.any(Number), costUsd: expect.any(Number) } });
  });

  it('sends cache_control on the static prefix only, and reads it from the cache next time', async () => {
    const first = await collectParts(backend.stream(request('a'), signal()));
    const second = await collectParts(backend.stream(request('b'), signal()));
    const body = fake.requests.at(-1)!.body as { system: { text: string; cache_control?: unknown }[] };
    expect(body.system[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.system[1]!.cache_control).toBeUndefined();
    const usageOf = (parts: typeof first) => parts.find((part) => part.type === 'usage')!;
    // The first call of the test file already wrote the prefix; both read it now.
    expect(usageOf(first)).toMatchObject({ usage: { cacheReadTokens: expect.any(Number) } });
    expect((usageOf(second) as { usage: { cacheReadTokens: number } }).usage.cacheReadTokens).toBeGreaterThan(1000);
  });

  it('a history that grows at the end is read back from the cache up to where the last call ended', async () => {
    const entries = Array.from({ length: 60 }, (_, index) => `Thought ${index}: ${'the sea again, and what it meant to them. '.repeat(3)}`);
    const growing = (count: number): BackendRequest => {
      let content = '<S_quiet_history>';
      const cacheBoundaries: number[] = [];
      for (const [index, entry] of entries.slice(0, count).entries()) {
        content += (index ? '\n---\n' : '') + entry;
        cacheBoundaries.push(content.length);
      }
      content += `</S_quiet_history>\n<ED_user>message ${count}</ED_user>`;
      return { ...request(), messages: [{ role: 'user', content, cacheBoundaries }] };
    };
    const usage = async (count: number) => {
      const parts = await collectParts(backend.stream(growing(count), signal()));
      return (parts.find((part) => part.type === 'usage') as { usage: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } }).usage;
    };
    await usage(50);
    const next = await usage(51);
    // Each entry is its own block; the newest three carry breakpoints (the system has one).
    const body = fake.requests.at(-1)!.body as { system: { cache_control?: unknown }[]; messages: { content: { text: string; cache_control?: unknown }[] }[] };
    const blocks = body.messages[0]!.content;
    expect(blocks).toHaveLength(52);
    expect(blocks.map((block) => Boolean(block.cache_control)).join('')).toBe(`${'false'.repeat(48)}truetruetruefalse`);
    expect(blocks.map((block) => block.text).join('')).toBe(growing(51).messages[0]!.content);
    // Read: the system and 50 entries; written: the one new entry; sent uncached: the tail.
    const total = next.inputTokens + next.cacheReadTokens + next.cacheWriteTokens;
    expect(next.cacheReadTokens / total).toBeGreaterThan(0.95);
    expect(next.cacheWriteTokens).toBeGreaterThan(0);
    expect(next.cacheWriteTokens).toBeLessThan(50);
  });

  it('turns thinking into reasoning-delta, never reply text', async () => {
    const parts = await collectParts(backend.stream(request('think'), signal()));
    expect(reasoningOf(parts)).toBe('Let me think.');
    expect(textOf(parts)).toBe('Reply to think');
  });

  it('reports max_tokens as length', async () => {
    fake.script = () => ({ text: 'cut', stopReason: 'max_tokens' });
    const parts = await collectParts(backend.stream(request(), signal()));
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'length', rawReason: 'max_tokens' });
    fake.script = (r) => ({ text: `Reply to ${r.lastUserText}` });
  });

  it.each([
    [{ kind: 'status', status: 429, retryAfter: '7' } as FakeFault, 'rate_limited', true],
    [{ kind: 'status', status: 529 } as FakeFault, 'overloaded', true],
    [{ kind: 'status', status: 500 } as FakeFault, 'server', true],
    [{ kind: 'status', status: 401, message: 'invalid x-api-key' } as FakeFault, 'authentication', false],
    [{ kind: 'status', status: 400, message: 'prompt is too long: 300000 tokens > 200000 maximum' } as FakeFault, 'prompt_too_long', false],
    [{ kind: 'status', status: 400, message: 'messages: field required' } as FakeFault, 'invalid_request', false],
    [{ kind: 'reset' } as FakeFault, 'connection', true],
    [{ kind: 'stream-error', afterChunks: 2, errorType: 'overloaded_error' } as FakeFault, 'overloaded', true],
  ])('maps fault %j to a typed error (%s)', async (fault, kind, retryable) => {
    const before = fake.requests.length;
    fake.failNext(fault);
    const parts = await collectParts(backend.stream(request(), signal()));
    const error = errorOf(parts);
    expect(error?.kind).toBe(kind);
    expect(error?.isRetryable).toBe(retryable);
    if (fault.kind === 'status' && fault.message !== undefined) expect(error?.message).toContain(fault.message);
    if (fault.kind === 'status' && fault.retryAfter) expect(error?.retryAfterMs).toBe(7000);
    // SDK retries are off: exactly one request reached the server.
    expect(fake.requests.length - before).toBe(1);
  });

  it('reports a stream cut mid-way and a malformed event as errors, never as a finished reply', async () => {
    fake.failNext({ kind: 'cut', afterChunks: 2 });
    const cut = await collectParts(backend.stream(request(), signal()));
    // The kind decides what happens next: a lost connection is retried (unless words were shown already), a malformed stream is not.
    expect(errorOf(cut)).toMatchObject({ kind: 'connection', isRetryable: true });
    expect(cut.some((part) => part.type === 'finish')).toBe(false);
    fake.failNext({ kind: 'malformed', afterChunks: 1 });
    const malformed = await collectParts(backend.stream(request(), signal()));
    expect(errorOf(malformed)).toMatchObject({ kind: 'protocol', isRetryable: false });
    expect(malformed.some((part) => part.type === 'finish')).toBe(false);
  });

  it('ends quietly when aborted mid-stream, and when the server hangs', async () => {
    fake.chunkDelayMs = 20;
    const controller = new AbortController();
    const parts = [];
    for await (const part of backend.stream(request('a long answer'), controller.signal)) {
      parts.push(part);
      if (parts.length === 2) controller.abort();
    }
    expect(parts.every((part) => part.type === 'text-delta')).toBe(true);
    fake.chunkDelayMs = 0;

    fake.failNext({ kind: 'hang' });
    const hung = new AbortController();
    setTimeout(() => hung.abort(), 200);
    expect(await collectParts(backend.stream(request(), hung.signal))).toEqual([]);
  });

  it('says plainly when no API key is configured', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    const parts = await collectParts(new AnthropicBackend({ baseURL: fake.url }).stream(request(), signal()));
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    expect(errorOf(parts)).toMatchObject({ kind: 'authentication', message: expect.stringContaining('ANTHROPIC_API_KEY') });
  });

  it('lists the models the API reports, a deprecated one with its end-of-life date', async () => {
    expect(await backend.listModels(signal())).toEqual([
      { id: 'claude-sonnet-5-5', label: 'Claude Sonnet 5.5', context_window: 1_000_000 },
      { id: 'claude-haiku-5-5', label: 'Claude Haiku 5.5', context_window: 1_000_000 },
      { id: 'claude-sonnet-4-5-20250929', label: 'Claude Sonnet 4.5', context_window: 1_000_000, end_of_life: '2026-11-30' },
    ]);
  });

  it('shows the SDK deprecation warning once per model, not on every call', async () => {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(String(args[0]));
    try {
      for (let call = 0; call < 3; call++) await collectParts(backend.stream({ ...request(), model: 'claude-sonnet-4-5' }, signal()));
      await collectParts(backend.stream({ ...request(), model: 'claude-sonnet-5-5' }, signal()));
    } finally {
      console.warn = warn;
    }
    expect(warnings).toEqual([expect.stringMatching(/'claude-sonnet-4-5' is deprecated and reaches end of life on 2026-11-30: switch to claude-sonnet-5-5/)]);
  });

  it('a model the API no longer serves fails at once with the provider\'s exact words', async () => {
    fake.failNext({ kind: 'status', status: 404, message: 'model: claude-3-opus-20240229' });
    const error = errorOf(await collectParts(backend.stream({ ...request(), model: 'claude-3-opus-20240229' }, signal())));
    expect(error).toMatchObject({ kind: 'model_not_found', status: 404, message: 'model: claude-3-opus-20240229', isRetryable: false });
  });
});
