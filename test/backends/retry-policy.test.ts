import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendError } from '@/lib/backends/backend-error';
import { OpenAICompatibleBackend } from '@/lib/backends/openai-compatible-backend';
import { defaultRetryPolicy, retryDelayMs, streamWithRetries, type RetryNotice } from '@/lib/backends/retry-policy';
import type { Clock } from '@/lib/clock/clock';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { collectParts, errorOf, textOf } from '@/test/support/collect';

let fake: FakeOpenAIServer;
let backend: OpenAICompatibleBackend;
const sleeps: number[] = [];
const clock: Clock = { now: () => 0, sleep: async (ms) => void sleeps.push(ms) };
const request = { system: [], messages: [{ role: 'user' as const, content: 'x' }], model: 'fake-small', maxTokens: 16 };

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ script: () => ({ text: 'fine' }) });
  backend = new OpenAICompatibleBackend({ endpoint: fake.url });
});
afterAll(() => fake.close());

async function run() {
  sleeps.length = 0;
  const notices: RetryNotice[] = [];
  const before = fake.requests.length;
  const parts = await collectParts(streamWithRetries(backend, request, new AbortController().signal, { clock, random: () => 0.5, onRetry: (notice) => notices.push(notice) }));
  return { parts, notices, requests: fake.requests.length - before };
}

describe('the one retry policy', () => {
  it('retries 429 honouring retry-after, then succeeds', async () => {
    fake.failNext({ kind: 'status', status: 429, retryAfter: '3' });
    const { parts, requests } = await run();
    expect(textOf(parts)).toBe('fine');
    expect(requests).toBe(2);
    expect(sleeps).toEqual([3000]);
  });

  it('caps a huge retry-after', async () => {
    fake.failNext({ kind: 'status', status: 429, retryAfter: '86400' });
    await run();
    expect(sleeps).toEqual([defaultRetryPolicy.maxRetryAfterMs]);
  });

  it('backs off exponentially with jitter on 5xx, 529 and resets, and gives up after maxAttempts', async () => {
    fake.failNext({ kind: 'status', status: 500 });
    fake.failNext({ kind: 'status', status: 529 });
    fake.failNext({ kind: 'reset' });
    fake.failNext({ kind: 'status', status: 503 });
    const { parts, requests, notices } = await run();
    expect(requests).toBe(4);
    expect(errorOf(parts)?.kind).toBe('server');
    expect(sleeps).toEqual([375, 750, 1500]);
    expect(notices.map((notice) => notice.error.kind)).toEqual(['server', 'overloaded', 'connection']);
  });

  it.each([400, 401, 403, 404])('fails at once on %i with the provider message', async (status) => {
    fake.failNext({ kind: 'status', status, message: `provider says ${status}` });
    const { parts, requests } = await run();
    expect(requests).toBe(1);
    expect(errorOf(parts)?.message).toContain(`provider says ${status}`);
  });

  it('never retries a stream that already produced text', async () => {
    fake.failNext({ kind: 'stream-error', afterChunks: 1 });
    fake.script = () => ({ text: 'partial output here' });
    const { parts, requests } = await run();
    expect(requests).toBe(1);
    expect(textOf(parts).length).toBeGreaterThan(0);
    expect(errorOf(parts)).toMatchObject({ afterOutput: true, isRetryable: false });
    fake.script = () => ({ text: 'fine' });
  });

  it('computes delays within bounds', () => {
    const error = new BackendError({ kind: 'server', message: 'x' });
    for (let attempt = 1; attempt < 10; attempt++) {
      const low = retryDelayMs(attempt, error, defaultRetryPolicy, () => 0);
      const high = retryDelayMs(attempt, error, defaultRetryPolicy, () => 1);
      expect(low).toBeGreaterThan(0);
      expect(high).toBeLessThanOrEqual(defaultRetryPolicy.maxDelayMs);
    }
  });
});
