// A fake Anthropic Messages API that speaks the SSE format of shared/reference/PROTOCOLS.md:
// message_start → ping → per block start/delta…/stop → message_delta → message_stop. It accepts
// both the SDK (Bearer) and the Claude Code CLI (x-api-key, ?beta=true, role:"system" entries)
// and models prompt caching on cache_control breakpoints the way the API documents it: a
// breakpoint caches the prefix up to its block (system blocks, then message blocks); a later
// request reads the longest cached prefix among its own breakpoints; entries live 5 minutes,
// refreshed by each read; prefixes under the model's minimum are not cached, silently. (The real
// API also looks back up to 20 blocks before a breakpoint; this fake does not, so it can only
// report fewer cache reads than the API would.)
import { createHash } from 'node:crypto';
import type http from 'node:http';
import {
  estimateTokens,
  FakeServerCore,
  splitIntoChunks,
  toolCallChunks,
  type FakeFault,
  type FakeReply,
  type FakeRequest,
  type FakeServerOptions,
} from './fake-server-core';

export interface FakeAnthropicOptions extends FakeServerOptions {
  /** API keys answered with 401 on the models list (a key the API does not know). */
  refusedKeys?: string[];
  /** The clock cache lifetimes run on (a benchmark's simulated hour); default: Date.now. */
  now?: () => number;
}

export interface FakeAnthropicServer extends FakeServerCore {
  /** Cached prefix hashes and when each expires: the next identical prefix reads from the cache. */
  readonly cachedPrefixes: Map<string, number>;
  readonly now: () => number;
}

function sse(response: http.ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

interface TextBlock {
  text?: string;
  cache_control?: unknown;
}

const cacheLifetimeMs = 5 * 60_000;

/** The API's minimum cacheable prefix: 4,096 tokens for Haiku 4.5, 1,024 for Sonnet and others. */
function minimumCacheable(model: string | undefined): number {
  return /haiku-4/.test(model ?? '') ? 4096 : 1024;
}

/** An image's size from its header (PNG, JPEG), for the API's formula: width × height / 750 tokens. */
function imageTokens(base64: string): number {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.readUInt32BE(0) === 0x89504e47) return Math.ceil((bytes.readUInt32BE(16) * bytes.readUInt32BE(20)) / 750);
  for (let at = 2; at + 9 < bytes.length; ) {
    if (bytes[at] !== 0xff) break;
    const marker = bytes[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) return Math.ceil((bytes.readUInt16BE(at + 5) * bytes.readUInt16BE(at + 7)) / 750);
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return 1_600;
}

interface SourceBlock extends TextBlock {
  type?: string;
  source?: { data?: string };
  content?: unknown;
}

/**
 * A block's cache key and size: text as written; an image or a PDF by its bytes' hash and the
 * tokens the API counts for it (an image by its pixels, a PDF ~1,500 a page), not its base64.
 */
function blockKey(role: string, block: SourceBlock): { key: string; chars: number } {
  if (block.text !== undefined) return { key: `${role}:${block.text}`, chars: role.length + 1 + block.text.length };
  const data = block.source?.data;
  if ((block.type === 'image' || block.type === 'document') && data) {
    const tokens = block.type === 'image' ? imageTokens(data) : 1_500 * Math.max(1, (Buffer.from(data, 'base64').toString('latin1').match(/\/Type\s*\/Page\b(?!s)/g) ?? []).length);
    return { key: `${role}:${block.type}:${createHash('sha256').update(data).digest('hex')}`, chars: tokens * 4 };
  }
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    const parts = (block.content as SourceBlock[]).map((part) => blockKey(role, part));
    return { key: `${role}:tool_result:${JSON.stringify({ ...block, content: parts.map((part) => part.key) })}`, chars: parts.reduce((sum, part) => sum + part.chars, 0) };
  }
  const key = `${role}:${JSON.stringify(block)}`;
  return { key, chars: key.length };
}

/** Every block in prompt order (system, then each message's), flattened with its role. */
function promptBlocks(body: { tools?: unknown[]; system?: unknown; messages?: { role: string; content: unknown }[] }): { key: string; chars: number; cached: boolean }[] {
  const blocks: { key: string; chars: number; cached: boolean }[] = [];
  const add = (role: string, content: unknown) => {
    if (typeof content === 'string') blocks.push({ key: `${role}:${content}`, chars: role.length + 1 + content.length, cached: false });
    else if (Array.isArray(content)) for (const block of content as SourceBlock[]) blocks.push({ ...blockKey(role, block), cached: Boolean(block.cache_control) });
  };
  // The API's cache order: tools, then system, then messages.
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const key = `tools:${JSON.stringify(body.tools)}`;
    blocks.push({ key, chars: key.length, cached: false });
  }
  add('system', body.system);
  for (const message of body.messages ?? []) add(message.role, message.content);
  return blocks;
}

/** The prefix up to each breakpoint: its size in tokens and its hash. */
function breakpointPrefixes(body: { system?: unknown; messages?: { role: string; content: unknown }[] }): { tokens: number; hash: string }[] {
  const prefixes: { tokens: number; hash: string }[] = [];
  const hash = createHash('sha256');
  let text = 0;
  for (const block of promptBlocks(body)) {
    hash.update(block.key);
    text += block.chars;
    if (block.cached) prefixes.push({ tokens: Math.ceil(text / 4), hash: hash.copy().digest('hex') });
  }
  return prefixes;
}

/** Input tokens read from the cache, written to it, and neither — and the cache updated. */
function cacheUsage(server: FakeAnthropicServer, body: { model?: string; system?: unknown; messages?: { role: string; content: unknown }[] }, totalInput: number) {
  const now = server.now();
  const prefixes = breakpointPrefixes(body).filter((prefix) => prefix.tokens >= minimumCacheable(body.model));
  const live = (hash: string) => (server.cachedPrefixes.get(hash) ?? 0) > now;
  const read = prefixes.filter((prefix) => live(prefix.hash)).reduce((best, prefix) => Math.max(best, prefix.tokens), 0);
  const longest = prefixes.reduce((best, prefix) => Math.max(best, prefix.tokens), 0);
  for (const prefix of prefixes) server.cachedPrefixes.set(prefix.hash, now + cacheLifetimeMs);
  const cacheRead = Math.min(read, totalInput);
  const cacheWrite = Math.min(Math.max(0, longest - read), totalInput - cacheRead);
  return { cacheRead, cacheWrite, input: Math.max(0, totalInput - cacheRead - cacheWrite) };
}

async function streamMessage(
  response: http.ServerResponse,
  reply: FakeReply,
  request: FakeRequest,
  server: FakeAnthropicServer,
  fault: FakeFault | undefined,
): Promise<void> {
  const body = request.body as { model?: string; system?: unknown; messages?: { role: string; content: unknown }[] };
  const totalInput = reply.inputTokens ?? Math.ceil(promptBlocks(body).reduce((sum, block) => sum + block.chars, 0) / 4);
  const { cacheRead, cacheWrite, input: inputTokens } = cacheUsage(server, body, totalInput);
  const id = `msg_fake_${Math.random().toString(16).slice(2, 14)}`;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_${id}` });
  sse(response, 'message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'unknown',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead },
    },
  });
  sse(response, 'ping', { type: 'ping' });

  let sent = 0;
  const interrupt = async (): Promise<boolean> => {
    if (!fault || fault.kind === 'status' || fault.kind === 'reset' || fault.kind === 'hang') return false;
    if (sent < fault.afterChunks) return false;
    if (fault.kind === 'cut') response.destroy();
    else if (fault.kind === 'malformed') {
      response.write('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n');
      response.end();
    } else {
      sse(response, 'error', errorBody(fault.errorType ?? 'overloaded_error', fault.message ?? 'Overloaded'));
      response.end();
    }
    return true;
  };

  const blocks: { type: 'thinking' | 'text'; chunks: string[] }[] = [];
  if (reply.reasoning) blocks.push({ type: 'thinking', chunks: splitIntoChunks(reply.reasoning) });
  blocks.push({ type: 'text', chunks: reply.chunks ?? splitIntoChunks(reply.text) });
  for (const [index, block] of blocks.entries()) {
    sse(response, 'content_block_start', {
      type: 'content_block_start',
      index,
      content_block: block.type === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
    });
    for (const chunk of block.chunks) {
      if (await interrupt()) return;
      await server.pace(sent);
      if (response.destroyed) return;
      sse(response, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: block.type === 'text' ? { type: 'text_delta', text: chunk } : { type: 'thinking_delta', thinking: chunk },
      });
      if (block.type === 'text') server.onDelta?.(chunk);
      sent++;
    }
    if (block.type === 'thinking') sse(response, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'fake' } });
    sse(response, 'content_block_stop', { type: 'content_block_stop', index });
  }
  // Tool calls after the text, as the API streams them: tool_use with input {}, then
  // input_json_delta fragments (the first one ""), then the block's stop.
  for (const [offset, call] of (reply.toolCalls ?? []).entries()) {
    const index = blocks.length + offset;
    const id = call.id ?? `toolu_fake${Math.random().toString(16).slice(2, 14)}`;
    sse(response, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: call.name, input: {} } });
    for (const fragment of ['', ...toolCallChunks(call)]) {
      await server.pace(sent);
      if (response.destroyed) return;
      sse(response, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } });
    }
    sse(response, 'content_block_stop', { type: 'content_block_stop', index });
  }
  if (await interrupt()) return;
  sse(response, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reply.stopReason ?? (reply.toolCalls?.length ? 'tool_use' : 'end_turn'), stop_sequence: null },
    usage: { output_tokens: reply.outputTokens ?? estimateTokens(reply.text + (reply.reasoning ?? '')) },
  });
  sse(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

export async function startFakeAnthropicServer(options: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
  const cachedPrefixes = new Map<string, number>();
  const core = new FakeServerCore(options, async (request, response, server) => {
    if (request.method === 'GET' && request.path === '/v1/models') {
      // A key the API does not know is refused here as on every call (faults are for model calls).
      const key = request.headers['x-api-key'] ?? String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (options.refusedKeys?.includes(String(key))) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify(errorBody('authentication_error', 'invalid x-api-key')));
        return true;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      // The API's shape (GET /v1/models): active and deprecated models, newest first.
      const model = (id: string, display_name: string, lifecycle: 'active' | 'deprecated', retires_at: string | null) => ({
        type: 'model',
        id,
        display_name,
        created_at: '2026-01-01T00:00:00Z',
        lifecycle,
        deprecated_at: lifecycle === 'deprecated' ? '2026-08-01T00:00:00Z' : null,
        retires_at,
        max_input_tokens: 1_000_000,
        max_tokens: 128_000,
        capabilities: null,
        line: null,
      });
      const data = [
        model('claude-sonnet-5-5', 'Claude Sonnet 5.5', 'active', null),
        model('claude-haiku-5-5', 'Claude Haiku 5.5', 'active', null),
        model('claude-sonnet-4-5-20250929', 'Claude Sonnet 4.5', 'deprecated', '2026-11-30T00:00:00Z'),
      ];
      response.end(JSON.stringify({ data, has_more: false, first_id: data[0]!.id, last_id: data.at(-1)!.id }));
      return true;
    }
    if (request.method !== 'POST' || request.path !== '/v1/messages') return false;
    if (!request.headers['x-api-key'] && !request.headers.authorization) {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify(errorBody('authentication_error', 'x-api-key header is required')));
      return true;
    }
    const fault = server.takeFault();
    const answered = await server.answerEarlyFault(response, fault, (status) =>
      errorBody(status.errorType ?? errorTypes[status.status] ?? 'api_error', status.message ?? `fake: status ${status.status}`),
    );
    if (answered) return true;
    const body = request.body as { stream?: boolean; model?: string };
    const reply = server.script(request);
    if (!body.stream) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text: reply.text }],
          stop_reason: reply.stopReason ?? 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: estimateTokens(JSON.stringify(request.body)), output_tokens: estimateTokens(reply.text) },
        }),
      );
      return true;
    }
    await streamMessage(response, reply, request, server as FakeAnthropicServer, fault);
    return true;
  }) as FakeAnthropicServer;
  Object.defineProperty(core, 'cachedPrefixes', { value: cachedPrefixes });
  Object.defineProperty(core, 'now', { value: options.now ?? Date.now });
  await core.listen(options.port);
  return core;
}
