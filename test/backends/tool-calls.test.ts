// Tool calls through the real adapters against the protocol-faithful fakes: every quirk listed
// under "Tool calls on the wire" in PROTOCOLS.md, and the round trip of results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicBackend } from '@/lib/backends/anthropic-backend';
import type { BackendRequest, BackendTool, StreamPart } from '@/lib/backends/model-backend';
import { OpenAICompatibleBackend } from '@/lib/backends/openai-compatible-backend';
import { OpenAIToolCallAccumulator, recoverLeakedToolCalls } from '@/lib/backends/openai-tool-calls';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import type { FakeReply } from '@/test/fakes/fake-server-core';
import { collectParts, textOf } from '@/test/support/collect';

const tools: BackendTool[] = [
  { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'list_files', description: 'List files', inputSchema: { type: 'object', properties: { recursive: { type: 'boolean' } } } },
  { name: 'bash', description: 'Run a command', inputSchema: { type: 'object', properties: { command: { type: 'string' }, timeout_s: { type: 'integer' } } } },
];

let nextReply: FakeReply = { text: 'nothing scripted' };
let anthropic: FakeAnthropicServer;
let openai: FakeOpenAIServer;

beforeAll(async () => {
  anthropic = await startFakeAnthropicServer({ script: () => nextReply });
  openai = await startFakeOpenAIServer({ script: () => nextReply });
});
afterAll(async () => {
  await anthropic.close();
  await openai.close();
});

const request = (extra: Partial<BackendRequest> = {}): BackendRequest => ({
  system: [{ text: 'You act.', cache: true }],
  messages: [{ role: 'user', content: 'do it' }],
  model: 'claude-sonnet-5-5',
  maxTokens: 256,
  tools,
  ...extra,
});

const callsOf = (parts: StreamPart[]) => parts.filter((part) => part.type === 'tool-call');
const finishOf = (parts: StreamPart[]) => parts.find((part) => part.type === 'finish');

const backends = {
  anthropic: () => new AnthropicBackend({ apiKey: 'test-key', baseURL: anthropic.url }),
  openai: () => new OpenAICompatibleBackend({ endpoint: openai.url }),
};

describe.each(Object.entries(backends))('%s adapter', (name, make) => {
  it('text first, then two parallel calls, arguments in fragments; finish says tool-calls', async () => {
    nextReply = {
      text: '<ID_loud>Let me look.</ID_loud>',
      toolCalls: [
        { id: 'call_a', name: 'read_file', input: { path: 'notes.md' } },
        { id: 'call_b', name: 'bash', input: { command: 'ls -la', timeout_s: 5 }, chunking: 'one-char' },
      ],
    };
    const parts = await collectParts(make().stream(request(), new AbortController().signal));
    expect(textOf(parts)).toBe('<ID_loud>Let me look.</ID_loud>');
    expect(callsOf(parts)).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'read_file', input: { path: 'notes.md' } },
      { type: 'tool-call', id: 'call_b', name: 'bash', input: { command: 'ls -la', timeout_s: 5 } },
    ]);
    expect(finishOf(parts)).toMatchObject({ reason: 'tool-calls' });
  });

  it('a call without arguments gives {}', async () => {
    nextReply = { text: '', toolCalls: [{ id: 'call_c', name: 'list_files' }] };
    const parts = await collectParts(make().stream(request(), new AbortController().signal));
    expect(callsOf(parts)).toEqual([{ type: 'tool-call', id: 'call_c', name: 'list_files', input: {} }]);
  });

  it('invalid JSON arguments become an input error, never a crash', async () => {
    nextReply = { text: '', toolCalls: [{ id: 'call_d', name: 'bash', arguments: '{"command": "ls' }] };
    const parts = await collectParts(make().stream(request(), new AbortController().signal));
    const [call] = callsOf(parts);
    expect(call).toMatchObject({ id: 'call_d', name: 'bash', input: null, inputError: expect.stringContaining('not valid JSON') });
    expect(finishOf(parts)).toBeDefined();
  });

  it('results go back in the provider shape, and tools are sent in their order', async () => {
    nextReply = { text: 'Done.' };
    await collectParts(
      make().stream(
        request({
          messages: [
            { role: 'user', content: 'do it' },
            { role: 'assistant', content: '', blocks: [{ type: 'text', text: 'Looking.' }, { type: 'tool-call', id: 'call_a', name: 'read_file', input: { path: 'a' } }, { type: 'tool-call', id: 'call_b', name: 'bash', input: { command: 'ls' } }] },
            { role: 'user', content: '', blocks: [{ type: 'tool-result', callId: 'call_a', content: 'hello', isError: false }, { type: 'tool-result', callId: 'call_b', content: 'Denied: not now', isError: true }] },
          ],
        }),
        new AbortController().signal,
      ),
    );
    const body = (name === 'anthropic' ? anthropic : openai).requests.at(-1)!.body as Record<string, unknown>;
    if (name === 'anthropic') {
      expect((body.tools as { name: string }[]).map((tool) => tool.name)).toEqual(['read_file', 'list_files', 'bash']);
      expect(body.messages).toEqual([
        { role: 'user', content: 'do it' },
        { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a' } }, { type: 'tool_use', id: 'call_b', name: 'bash', input: { command: 'ls' } }] },
        // The step's last block carries a cache breakpoint: the next step reads everything up to it.
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: 'hello', is_error: false },
            { type: 'tool_result', tool_use_id: 'call_b', content: 'Denied: not now', is_error: true, cache_control: { type: 'ephemeral' } },
          ],
        },
      ]);
    } else {
      expect((body.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(['read_file', 'list_files', 'bash']);
      expect((body.messages as unknown[]).slice(1)).toEqual([
        { role: 'user', content: 'do it' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
            { id: 'call_b', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'hello' },
        { role: 'tool', tool_call_id: 'call_b', content: 'Error: Denied: not now' },
      ]);
    }
  });
});

describe('Anthropic prompt caching with tools', () => {
  it('the call after a tool result reads the tools and system from the cache', async () => {
    const longSystem = 'Stable instructions. '.repeat(400);
    const base = request({ model: 'claude-sonnet-5-5', system: [{ text: longSystem, cache: true }] });
    nextReply = { text: '', toolCalls: [{ id: 'call_z', name: 'list_files' }] };
    const first = await collectParts(backends.anthropic().stream(base, new AbortController().signal));
    nextReply = { text: 'Done.' };
    const second = await collectParts(
      backends.anthropic().stream(
        {
          ...base,
          messages: [
            ...base.messages,
            { role: 'assistant', content: '', blocks: [{ type: 'tool-call', id: 'call_z', name: 'list_files', input: {} }] },
            { role: 'user', content: '', blocks: [{ type: 'tool-result', callId: 'call_z', content: 'a.txt', isError: false }] },
          ],
        },
        new AbortController().signal,
      ),
    );
    const usage = (parts: StreamPart[]) => parts.find((part) => part.type === 'usage');
    expect(usage(first)).toMatchObject({ usage: { cacheWriteTokens: expect.any(Number) } });
    expect((usage(first) as { usage: { cacheWriteTokens: number } }).usage.cacheWriteTokens).toBeGreaterThan(1000);
    expect((usage(second) as { usage: { cacheReadTokens: number } }).usage.cacheReadTokens).toBeGreaterThan(1000);
  });
});

describe('OpenAI-compatible quirks', () => {
  const openaiStream = async () => collectParts(backends.openai().stream(request({ model: 'fake-small' }), new AbortController().signal));

  it('the whole call in one chunk (Ollama, Groq, xAI)', async () => {
    nextReply = { text: '', toolCalls: [{ id: 'call_w', name: 'read_file', input: { path: 'x' }, chunking: 'whole' }] };
    expect(callsOf(await openaiStream())).toEqual([{ type: 'tool-call', id: 'call_w', name: 'read_file', input: { path: 'x' } }]);
  });

  it('index starting at 1 after text', async () => {
    nextReply = { text: 'Reading.', toolCallIndex: 'from-one', toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a' } }, { id: 'c2', name: 'read_file', input: { path: 'b' } }] };
    const parts = await openaiStream();
    expect(textOf(parts)).toBe('Reading.');
    expect(callsOf(parts).map((call) => call.type === 'tool-call' && call.input)).toEqual([{ path: 'a' }, { path: 'b' }]);
  });

  it('indexes missing (gateways): fragments join the latest call', async () => {
    nextReply = { text: '', toolCallIndex: 'missing', toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a' } }, { id: 'c2', name: 'bash', input: { command: 'pwd' } }] };
    expect(callsOf(await openaiStream()).map((call) => call.type === 'tool-call' && [call.id, call.input])).toEqual([
      ['c1', { path: 'a' }],
      ['c2', { command: 'pwd' }],
    ]);
  });

  it.each([
    ['hermes <tool_call> JSON', '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.md"}}\n</tool_call>', [{ name: 'read_file', input: { path: 'notes.md' } }]],
    ['Qwen3-Coder XML', '<tool_call>\n<function=bash>\n<parameter=command>\nls -la\n</parameter>\n<parameter=timeout_s>\n5\n</parameter>\n</function>\n</tool_call>', [{ name: 'bash', input: { command: 'ls -la', timeout_s: 5 } }]],
    ['bare JSON objects in a row, arguments omitted', '{"name": "list_files"}\n{"name": "read_file", "arguments": {"path": "a"}}', [{ name: 'list_files', input: {} }, { name: 'read_file', input: { path: 'a' } }]],
    ['arguments as a JSON string', '{"name": "read_file", "arguments": "{\\"path\\": \\"b\\"}"}', [{ name: 'read_file', input: { path: 'b' } }]],
  ])('a leaked call is recovered: %s', async (_label, text, expected) => {
    nextReply = { text, stopReason: 'stop', chunks: text.match(/[\s\S]{1,3}/g) ?? [text] };
    const parts = await openaiStream();
    expect(textOf(parts)).toBe('');
    expect(callsOf(parts).map((call) => call.type === 'tool-call' && { name: call.name, input: call.input })).toEqual(expected);
    expect(finishOf(parts)).toMatchObject({ reason: 'tool-calls' });
  });

  it.each([
    ['prose about tools', 'I could call read_file with {"path": "a"} if you like.'],
    ['a call to an undeclared tool', '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'],
    ['a call then prose', '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call> and then I will summarise.'],
    ['JSON that is data, not a call', '{"path": "a", "lines": 3}'],
    ['a half-written call', '<tool_call>{"name": "read_file", "arguments": {"path": '],
  ])('not a call, kept as text: %s', async (_label, text) => {
    nextReply = { text };
    const parts = await openaiStream();
    expect(textOf(parts)).toBe(text);
    expect(callsOf(parts)).toEqual([]);
  });

  it('without declared tools nothing is held back or recovered', async () => {
    nextReply = { text: '{"name": "read_file"}' };
    const parts = await collectParts(backends.openai().stream(request({ model: 'fake-small', tools: [] }), new AbortController().signal));
    expect(textOf(parts)).toBe('{"name": "read_file"}');
    expect(recoverLeakedToolCalls('{"name": "read_file"}', [])).toBeNull();
  });

  it('the accumulator correlates by id first: a reused index does not merge two calls', () => {
    const accumulator = new OpenAIToolCallAccumulator();
    accumulator.push({ index: 0, id: 'a', function: { name: 'read_file', arguments: '{"path":' } });
    accumulator.push({ index: 0, function: { arguments: '"x"}' } });
    accumulator.push({ index: 0, id: 'b', function: { name: 'bash', arguments: '{}' } });
    expect(accumulator.finish().map((call) => [call.id, call.name, call.input])).toEqual([
      ['a', 'read_file', { path: 'x' }],
      ['b', 'bash', {}],
    ]);
  });
});
