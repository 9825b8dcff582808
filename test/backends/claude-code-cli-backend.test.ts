// The Claude Code adapter against the real `claude` binary (devDependency), pointed at the fake
// Anthropic server; plus the captured stream-json samples replayed through the line parser.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliStreamInterpreter, parseCliLine } from '@/lib/backends/claude-cli-stream-line';
import { ClaudeCodeCliBackend, type WarmCli } from '@/lib/backends/claude-code-cli-backend';
import { CliWarmPool } from '@/lib/backends/cli-warm-pool';
import type { BackendRequest, StreamPart } from '@/lib/backends/model-backend';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { collectParts, errorOf, textOf } from '@/test/support/collect';

const cliPath = path.resolve('node_modules/.bin/claude');
// Captured from the real CLI 2.1.330 (copied from shared/reference/claude-cli-stream-json/).
const samplesDir = path.resolve('test/fixtures/claude-cli-stream-json');
let fake: FakeAnthropicServer;
let scratch: string;

const request = (content: string): BackendRequest => ({
  system: [{ text: 'You are the Internal Dialog.', cache: true }],
  messages: [{ role: 'user', content }],
  model: 'claude-haiku-4-5',
  maxTokens: 128,
});

/** Each run gets its own HOME (the CLI writes ~/.claude*); its path marks the run's processes. */
function backendFor(label: string, options: { cliPath?: string } = {}) {
  const home = fs.mkdtempSync(path.join(scratch, `${label}-`));
  return {
    home,
    backend: new ClaudeCodeCliBackend({
      cliPath: options.cliPath ?? cliPath,
      env: { HOME: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'dummy-key' },
    }),
  };
}

/** Processes whose environment carries this HOME: the CLI and anything it started. */
function processesWithHome(home: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) found.push(Number(entry));
    } catch {
      // gone or not ours
    }
  }
  return found;
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-cli-test-'));
  fake = await startFakeAnthropicServer({ script: (r) => ({ text: `CLI heard: ${r.lastUserText}` }) });
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the CLI retrying by itself', () => {
  it('announces each of its own waits as a retry part, once per attempt, then answers', async () => {
    fake.failNext({ kind: 'status', status: 529 }, 2);
    const { backend } = backendFor('retry');
    const parts = await collectParts(backend.stream(request('after two overloads'), AbortSignal.timeout(60_000)));
    const retries = parts.filter((part): part is Extract<StreamPart, { type: 'retry' }> => part.type === 'retry');
    expect(retries.map((part) => part.attempt)).toEqual([1, 2]);
    for (const retry of retries) {
      expect(retry.delayMs).toBeGreaterThan(0);
      expect(retry.error).toMatchObject({ kind: 'overloaded', status: 529, message: expect.stringContaining('HTTP 529') });
    }
    expect(textOf(parts)).toBe('CLI heard: after two overloads');
  });

  it('a model the API no longer serves: the provider\'s words, as model_not_found, without retries', async () => {
    // The CLI sends the call twice before it gives up on a 404 (seen with 2.1.330), silently.
    fake.failNext({ kind: 'status', status: 404, message: 'model: claude-3-opus-20240229' }, 2);
    const { backend } = backendFor('gone');
    const parts = await collectParts(backend.stream({ ...request('gone'), model: 'claude-3-opus-20240229' }, AbortSignal.timeout(60_000)));
    expect(parts.filter((part) => part.type === 'retry')).toEqual([]);
    // It rewords the API's message: "There's an issue with the selected model (…). It may not exist …".
    expect(errorOf(parts)).toMatchObject({ kind: 'model_not_found', status: 404, message: expect.stringContaining('claude-3-opus-20240229') });
  });

  it('the alias "haiku" resolves inside the CLI and its cost comes from the CLI', async () => {
    const { backend } = backendFor('alias');
    const parts = await collectParts(backend.stream({ ...request('alias'), model: 'haiku' }, AbortSignal.timeout(60_000)));
    expect(fake.requests.at(-1)?.body).toMatchObject({ model: 'claude-haiku-5-5' });
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { costUsd: expect.any(Number) } });
  });
});

describe('Claude Code CLI backend (real binary, fake API)', () => {
  it('streams text from partial messages, with usage and cost from the result line', async () => {
    const { backend } = backendFor('ok');
    const parts = await collectParts(backend.stream(request('hello <ED_user>'), new AbortController().signal));
    expect(textOf(parts)).toBe('CLI heard: hello <ED_user>');
    expect(parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThan(1);
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { inputTokens: expect.any(Number), costUsd: expect.any(Number) } });
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop', rawReason: 'end_turn' });
    // Our system prompt replaced the CLI's default one, and no tools were offered.
    const sent = fake.requests.at(-1)!.body as { system: unknown; tools?: { name: string }[] };
    expect(JSON.stringify(sent.system)).toContain('You are the Internal Dialog.');
    expect((sent.tools ?? []).filter((tool) => tool.name !== 'DeferredToolPlaceholder')).toEqual([]);
  });

  // Only a 400: the CLI retries 401/429/5xx itself for many seconds before giving up.
  it.each([[400, 'invalid_request']])('turns an API error %i into a typed error, never into model output', async (status, kind) => {
    fake.failNext({ kind: 'status', status, message: `fake says ${status}` }, 5);
    const { backend } = backendFor(`err${status}`);
    const parts = await collectParts(backend.stream(request('fail please'), new AbortController().signal));
    while (fake.takeFault()) {
      // drain what the CLI did not use
    }
    expect(textOf(parts)).toBe('');
    expect(errorOf(parts)).toMatchObject({ kind, message: expect.stringContaining(`fake says ${status}`) });
  });

  it('says plainly when the binary is missing', async () => {
    const { backend } = backendFor('missing', { cliPath: '/nowhere/claude' });
    const error = errorOf(await collectParts(backend.stream(request('x'), new AbortController().signal)));
    expect(error).toMatchObject({ kind: 'cli_missing', message: expect.stringContaining('Claude Code CLI not found at "/nowhere/claude"') });
  });

  it('reports a CLI that exits 1 with its stderr', async () => {
    const script = path.join(scratch, 'broken-claude');
    fs.writeFileSync(script, '#!/bin/sh\necho "fatal: config is corrupt" >&2\nexit 1\n', { mode: 0o755 });
    const { backend } = backendFor('exit1', { cliPath: script });
    const error = errorOf(await collectParts(backend.stream(request('x'), new AbortController().signal)));
    expect(error).toMatchObject({ kind: 'cli_failed', exitCode: 1, message: expect.stringContaining('config is corrupt') });
  });

  it('abort mid-stream ends the stream and the process group: no more words, no process left', async () => {
    fake.chunkDelayMs = 100;
    fake.script = () => ({ text: 'a slow reply that streams for a while '.repeat(4) });
    const { backend, home } = backendFor('abort');
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of backend.stream(request('slow'), controller.signal)) {
      parts.push(part);
      if (parts.length === 2) {
        expect(processesWithHome(home).length).toBeGreaterThan(0);
        controller.abort();
      }
    }
    fake.chunkDelayMs = 0;
    fake.script = (r) => ({ text: `CLI heard: ${r.lastUserText}` });
    // Ended by the abort, not by the reply running out: a few words of it, no error, no process
    // (how soon is measured in bench/stop-times.ts).
    expect(parts.every((part) => part.type === 'text-delta')).toBe(true);
    expect(textOf(parts).length).toBeLessThan('a slow reply that streams for a while '.repeat(4).length);
    expect(processesWithHome(home)).toEqual([]);
  });

  it('a layer that repeats its call gets a process started ahead, which waits for its prompt; a changed prompt does not; none is left behind', async () => {
    const pool = new CliWarmPool<WarmCli>({ max: 2, idleMs: 60_000, minFreeBytes: 0 });
    const home = fs.mkdtempSync(path.join(scratch, 'warm-'));
    const backend = new ClaudeCodeCliBackend({ cliPath, env: { HOME: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'dummy-key' }, warmPool: pool });
    const heard: string[] = [];
    for (const words of ['one', 'two', 'three']) {
      heard.push(textOf(await collectParts(backend.stream(request(words), new AbortController().signal))));
      if (words === 'two') {
        // Started after the second call, it waits on stdin: nothing reaches the model until it has a prompt.
        const requestsBefore = fake.requests.length;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(pool.size).toBe(1);
        expect(fake.requests.length).toBe(requestsBefore);
      }
    }
    // The third call ran on the process started ahead, with its own words.
    expect(heard).toEqual(['CLI heard: one', 'CLI heard: two', 'CLI heard: three']);
    expect(pool.hits).toBe(1);
    // Another system prompt: its first call neither takes nor leaves a process.
    const other = { ...request('four'), system: [{ text: 'You are someone else.', cache: true }] };
    expect(textOf(await collectParts(backend.stream(other, new AbortController().signal)))).toBe('CLI heard: four');
    expect(pool.hits).toBe(1);
    expect(pool.size).toBe(1);
    pool.closeAll();
    await vi.waitFor(() => expect(processesWithHome(home)).toEqual([]), { timeout: 5_000 });
  });
});

describe('captured stream-json samples through the line parser', () => {
  const replay = (name: string) => {
    const interpreter = new CliStreamInterpreter();
    const lines = fs.readFileSync(path.join(samplesDir, `${name}.jsonl`), 'utf8').split('\n').filter(Boolean);
    return lines.flatMap((line) => interpreter.accept(parseCliLine(line)));
  };

  it('partial-messages: text once, usage with the reported cost, finish', () => {
    const parts = replay('partial-messages');
    expect(textOf(parts)).toBe('Hello from fake (claude-opus-5-5)');
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { inputTokens: 12, outputTokens: 7, costUsd: 0.000188 } });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('plain-text (no partial messages): the assistant line supplies the text', () => {
    const parts = replay('plain-text');
    expect(textOf(parts).length).toBeGreaterThan(0);
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('api-error-400: the <synthetic> message is an error, not output', () => {
    const parts = replay('api-error-400');
    expect(textOf(parts)).toBe('');
    expect(errorOf(parts)).toMatchObject({ kind: 'invalid_request', status: 400, message: 'API Error: 400 fake: bad request' });
  });

  it('max-turns-exceeded: a typed CLI failure', () => {
    expect(errorOf(replay('max-turns-exceeded'))).toMatchObject({ kind: 'cli_failed' });
  });

  it.each(['tool-use-allowed', 'tool-use-denied'])('%s: every line parses', (name) => {
    const lines = fs.readFileSync(path.join(samplesDir, `${name}.jsonl`), 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(parseCliLine(line).type).not.toBe('invalid');
  });

  it('a line that is not JSON is a protocol error', () => {
    expect(new CliStreamInterpreter().accept(parseCliLine('Welcome to Claude!'))).toMatchObject([{ type: 'error', error: { kind: 'protocol' } }]);
  });
});
