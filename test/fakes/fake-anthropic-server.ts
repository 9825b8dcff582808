// A fake Anthropic Messages API that speaks the SSE format of shared/reference/PROTOCOLS.md:
// message_start → ping → per block start/delta…/stop → message_delta → message_stop. It accepts
// both the SDK (Bearer) and the Claude Code CLI (x-api-key, ?beta=true, role:"system" entries)
// and models prompt caching on cache_control breakpoints.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import {
  delay,
  estimateTokens,
  FakeServerCore,
  splitIntoChunks,
  type FakeFault,
  type FakeReply,
  type FakeRequest,
  type FakeServerOptions,
} from './fake-server-core';

export interface FakeAnthropicServer extends FakeServerCore {
  /** Prefix hashes seen with cache_control: the next identical prefix reads from the cache. */
  readonly cachedPrefixes: Set<string>;
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

interface SystemBlock {
  text: string;
  cache_control?: unknown;
}

/** Tokens of the system prefix up to the last cache_control breakpoint, and its hash. */
function cacheablePrefix(body: { system?: unknown }): { tokens: number; hash: string } | undefined {
  if (!Array.isArray(body.system)) return undefined;
  const blocks = body.system as SystemBlock[];
  const last = blocks.map((block) => Boolean(block.cache_control)).lastIndexOf(true);
  if (last === -1) return undefined;
  const text = blocks.slice(0, last + 1).map((block) => block.text).join('');
  return { tokens: estimateTokens(text), hash: createHash('sha256').update(text).digest('hex') };
}

async function streamMessage(
  response: http.ServerResponse,
  reply: FakeReply,
  request: FakeRequest,
  server: FakeAnthropicServer,
  fault: FakeFault | undefined,
): Promise<void> {
  const body = request.body as { model?: string; system?: unknown; messages?: unknown };
  const totalInput = reply.inputTokens ?? estimateTokens(JSON.stringify(body.system ?? '') + JSON.stringify(body.messages ?? ''));
  const prefix = cacheablePrefix(body);
  let cacheRead = 0;
  let cacheWrite = 0;
  if (prefix) {
    if (server.cachedPrefixes.has(prefix.hash)) cacheRead = Math.min(prefix.tokens, totalInput);
    else {
      cacheWrite = Math.min(prefix.tokens, totalInput);
      server.cachedPrefixes.add(prefix.hash);
    }
  }
  const inputTokens = Math.max(0, totalInput - cacheRead - cacheWrite);
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
      if (server.chunkDelayMs) await delay(server.chunkDelayMs);
      if (response.destroyed) return;
      sse(response, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: block.type === 'text' ? { type: 'text_delta', text: chunk } : { type: 'thinking_delta', thinking: chunk },
      });
      sent++;
    }
    if (block.type === 'thinking') sse(response, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'fake' } });
    sse(response, 'content_block_stop', { type: 'content_block_stop', index });
  }
  if (await interrupt()) return;
  sse(response, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reply.stopReason ?? 'end_turn', stop_sequence: null },
    usage: { output_tokens: reply.outputTokens ?? estimateTokens(reply.text + (reply.reasoning ?? '')) },
  });
  sse(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

export async function startFakeAnthropicServer(options: FakeServerOptions = {}): Promise<FakeAnthropicServer> {
  const cachedPrefixes = new Set<string>();
  const core = new FakeServerCore(options, async (request, response, server) => {
    if (request.method === 'GET' && request.path === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ type: 'model', id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' }], has_more: false, first_id: null, last_id: null }));
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
  await core.listen(options.port);
  return core;
}
