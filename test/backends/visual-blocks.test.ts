// Images and PDFs on the wire (issue 33), each adapter against its protocol-faithful fake: the
// Anthropic adapter sends image and document blocks (and tool results that carry images); the
// OpenAI-compatible one sends `image_url` data URLs, a PDF's text, and what a tool showed in a user
// message after the tool messages; the real Claude Code CLI (2.1.330) forwards the blocks of its
// stream-json input line as they are. And an image in a turn's history stays byte-identical, so
// the next step reads it from the prompt cache.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareImage } from '@/lib/attachments/image-prep';
import { AnthropicBackend } from '@/lib/backends/anthropic-backend';
import { ClaudeCodeCliBackend } from '@/lib/backends/claude-code-cli-backend';
import type { BackendRequest, ContentBlock, DocumentBlock, ImageBlock } from '@/lib/backends/model-backend';
import { OpenAICompatibleBackend } from '@/lib/backends/openai-compatible-backend';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { collectParts, textOf } from '@/test/support/collect';
import { pdfWithPages } from '@/test/support/hostile-files';

let anthropic: FakeAnthropicServer;
let openai: FakeOpenAIServer;
let image: ImageBlock;
let scratch: string;
const pdf = pdfWithPages(2);
const document: DocumentBlock = { type: 'document', mediaType: 'application/pdf', data: pdf.toString('base64'), text: '[page 1] Page 1\n[page 2] Page 2', tokens: 3000, label: '/workspace/uploads/report.pdf' };
const signal = () => AbortSignal.timeout(60_000);

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-visual-'));
  anthropic = await startFakeAnthropicServer({ script: (request) => ({ text: `Seen: ${request.lastUserText}` }) });
  openai = await startFakeOpenAIServer({ script: (request) => ({ text: `Seen: ${request.lastUserText}` }) });
  const prepared = await prepareImage(await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366cc' } }).png().toBuffer(), 'anthropic');
  image = { type: 'image', mediaType: prepared.mimeType, data: prepared.bytes.toString('base64'), tokens: prepared.tokens, label: '/workspace/uploads/chart.png' };
});
afterAll(async () => {
  await Promise.all([anthropic.close(), openai.close()]);
  fs.rmSync(scratch, { recursive: true, force: true });
});

const request = (blocks: ContentBlock[], model = 'claude-sonnet-4-5'): BackendRequest => ({
  system: [{ text: 'You look carefully.', cache: true }],
  messages: [{ role: 'user', content: 'What is in the chart?', blocks }],
  model,
  maxTokens: 64,
});
const lastBody = (fake: { requests: { body: unknown }[] }) => fake.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };

describe('the Anthropic adapter', () => {
  it('sends an image block and a document block before the words', async () => {
    const parts = await collectParts(new AnthropicBackend({ apiKey: 'k', baseURL: anthropic.url }).stream(request([image, document, { type: 'text', text: 'What is in the chart?' }]), signal()));
    expect(textOf(parts)).toBe('Seen: What is in the chart?');
    const content = lastBody(anthropic).messages[0]!.content as Record<string, unknown>[];
    expect(content[0]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.data } });
    expect(content[1]).toMatchObject({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: document.data }, title: '/workspace/uploads/report.pdf' });
    expect(content[2]).toMatchObject({ type: 'text', text: 'What is in the chart?' });
  });

  it('a tool result that shows an image carries it; the next step reads the image from the cache', async () => {
    const backend = new AnthropicBackend({ apiKey: 'k', baseURL: anthropic.url });
    const big = await prepareImage(await sharp({ create: { width: 1500, height: 1000, channels: 3, background: '#aa3300' } }).png().toBuffer(), 'anthropic');
    const shown: ImageBlock = { type: 'image', mediaType: big.mimeType, data: big.bytes.toString('base64'), tokens: big.tokens, label: '/workspace/plot.png' };
    const first: BackendRequest = {
      ...request([]),
      messages: [
        { role: 'user', content: 'Draw and look.' },
        { role: 'assistant', content: '', blocks: [{ type: 'tool-call', id: 'toolu_1', name: 'view_image', input: { path: 'plot.png' } }] },
        { role: 'user', content: '', blocks: [{ type: 'tool-result', callId: 'toolu_1', content: 'Here is plot.png', isError: false, images: [shown] }] },
      ],
    };
    const firstParts = await collectParts(backend.stream(first, signal()));
    const result = (lastBody(anthropic).messages[2]!.content as Record<string, unknown>[])[0]!;
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Here is plot.png' }, { type: 'image', source: { data: shown.data } }], cache_control: { type: 'ephemeral' } });
    const written = firstParts.find((part) => part.type === 'usage');
    expect(written).toMatchObject({ usage: { cacheWriteTokens: expect.any(Number) } });

    // The next step: the same history (the very same bytes), one more exchange.
    const second: BackendRequest = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: '', blocks: [{ type: 'tool-call', id: 'toolu_2', name: 'read_file', input: { path: 'notes.txt' } }] },
        { role: 'user', content: '', blocks: [{ type: 'tool-result', callId: 'toolu_2', content: 'notes', isError: false }] },
      ],
    };
    const secondParts = await collectParts(backend.stream(second, signal()));
    const usage = secondParts.find((part) => part.type === 'usage');
    if (usage?.type !== 'usage') throw new Error('no usage');
    // The image alone is 1500 × 1000 → 1,386 × 924 px ≈ 1,708 tokens: all of it is read back.
    expect(usage.usage.cacheReadTokens).toBeGreaterThan(big.tokens);
  });
});

describe('an OpenAI-compatible server', () => {
  it('gets image_url data URLs, a PDF as its text, and what a tool showed in a user message after the tool message', async () => {
    const backend = new OpenAICompatibleBackend({ endpoint: openai.url });
    await collectParts(backend.stream(request([image, document, { type: 'text', text: 'What is in the chart?' }], 'qwen2.5vl:7b'), signal()));
    const content = lastBody(openai).messages[1]!.content as Record<string, unknown>[];
    expect(content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
      { type: 'text', text: '[/workspace/uploads/report.pdf, its text:]\n[page 1] Page 1\n[page 2] Page 2' },
      { type: 'text', text: 'What is in the chart?' },
    ]);

    await collectParts(
      backend.stream(
        {
          ...request([], 'qwen2.5vl:7b'),
          messages: [
            { role: 'user', content: 'Look at the plot.' },
            { role: 'assistant', content: '', blocks: [{ type: 'tool-call', id: 'call_1', name: 'view_image', input: { path: 'plot.png' } }] },
            { role: 'user', content: '', blocks: [{ type: 'tool-result', callId: 'call_1', content: 'Here is plot.png', isError: false, images: [image] }] },
          ],
        },
        signal(),
      ),
    );
    const messages = lastBody(openai).messages;
    expect(messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Here is plot.png' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[What the tool calls above showed: /workspace/uploads/chart.png]' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
        ],
      },
    ]);
  });
});

describe('the Claude Code CLI', () => {
  it('takes the blocks on a stream-json input line and forwards them to the API as they are', async () => {
    const home = fs.mkdtempSync(path.join(scratch, 'home-'));
    const backend = new ClaudeCodeCliBackend({ cliPath: path.resolve('node_modules/.bin/claude'), env: { HOME: home, ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'dummy-key' } });
    const parts = await collectParts(backend.stream(request([image, document, { type: 'text', text: 'What is in the chart?' }], 'claude-haiku-4-5'), signal()));
    expect(textOf(parts)).toBe('Seen: What is in the chart?');
    const content = lastBody(anthropic).messages.at(-1)!.content as Record<string, unknown>[];
    const own = content.filter((block) => !(block.type === 'text' && String(block.text).startsWith('<system-reminder>')));
    // (The CLI adds its own cache breakpoint on the last block.)
    expect(own).toMatchObject([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.data } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: document.data }, title: '/workspace/uploads/report.pdf' },
      { type: 'text', text: 'What is in the chart?' },
    ]);
  });
});
