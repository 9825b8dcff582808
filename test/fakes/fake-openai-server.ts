// A fake OpenAI-compatible Chat Completions server (PROTOCOLS.md): `data: <chunk>` lines, a first
// delta {role, content:""}, content deltas, a finish chunk, a usage chunk with include_usage,
// then `data: [DONE]`. Reasoning can be sent the way vLLM, Ollama or DeepSeek-R1 send it.
import type http from 'node:http';
import { fakeEmbedding } from './fake-embedder';
import { delay, estimateTokens, FakeServerCore, splitIntoChunks, toolCallChunks, type FakeFault, type FakeReply, type FakeRequest, type FakeServerOptions } from './fake-server-core';

export type ReasoningStyle = 'reasoning_content' | 'reasoning' | 'think-tag';

export interface FakeOpenAIOptions extends FakeServerOptions {
  models?: string[];
  reasoningStyle?: ReasoningStyle;
  /**
   * `/v1/embeddings`: like Ollama, floats whatever `encoding_format` asks ('always-float'), or
   * base64 when asked, like OpenAI ('honour').
   */
  embeddingEncoding?: 'always-float' | 'honour';
  /** The vector of one text (default: fake-embedder.ts). */
  embed?: (text: string, index: number) => number[];
}

export interface FakeOpenAIServer extends FakeServerCore {
  reasoningStyle: ReasoningStyle;
}

function data(response: http.ServerResponse, value: unknown): void {
  response.write(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);
}

async function streamCompletion(response: http.ServerResponse, reply: FakeReply, request: FakeRequest, server: FakeOpenAIServer, fault: FakeFault | undefined) {
  const body = request.body as { model?: string; stream_options?: { include_usage?: boolean }; messages?: unknown };
  const id = `chatcmpl-fake${Math.random().toString(16).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: body.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  data(response, chunk({ role: 'assistant', content: '' }));

  const deltas: Record<string, unknown>[] = [];
  const style = server.reasoningStyle;
  if (reply.reasoning) {
    if (style === 'think-tag') for (const piece of splitIntoChunks(`<think>${reply.reasoning}</think>`, 3)) deltas.push({ content: piece });
    else for (const piece of splitIntoChunks(reply.reasoning)) deltas.push({ [style]: piece });
  }
  for (const piece of reply.chunks ?? splitIntoChunks(reply.text)) deltas.push({ content: piece });

  if (reply.holdMs) await delay(reply.holdMs);
  let sent = 0;
  for (const delta of deltas) {
    if (fault && (fault.kind === 'cut' || fault.kind === 'malformed' || fault.kind === 'stream-error') && sent >= fault.afterChunks) {
      if (fault.kind === 'cut') response.destroy();
      else if (fault.kind === 'malformed') {
        data(response, '{"id":"x","choices":[{"delta":{"content":"tor');
        response.end();
      } else {
        data(response, { error: { message: fault.message ?? 'fake: stream error', type: fault.errorType ?? 'server_error' } });
        response.end();
      }
      return;
    }
    await server.pace(sent);
    if (response.destroyed) return;
    data(response, chunk(delta));
    if (typeof delta.content === 'string') server.onDelta?.(delta.content);
    sent++;
  }
  // Tool calls: the first delta names the call (id, name, arguments ""), then argument fragments;
  // a 'whole' call comes in one delta, as Ollama, Groq and xAI send it.
  for (const [position, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_fake${Math.random().toString(16).slice(2, 12)}`;
    const indexing = reply.toolCallIndex ?? 'from-zero';
    const index = indexing === 'missing' ? {} : { index: position + (indexing === 'from-one' ? 1 : 0) };
    const pieces = toolCallChunks(call);
    if (call.chunking === 'whole') {
      data(response, chunk({ tool_calls: [{ ...index, id, type: 'function', function: { name: call.name, arguments: pieces[0] ?? '' } }] }));
      continue;
    }
    data(response, chunk({ tool_calls: [{ ...index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of pieces) {
      await server.pace(sent);
      if (response.destroyed) return;
      data(response, chunk({ tool_calls: [{ ...index, function: { arguments: piece } }] }));
    }
  }
  data(response, chunk({}, reply.stopReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')));
  if (body.stream_options?.include_usage) {
    const promptTokens = reply.inputTokens ?? estimateTokens(JSON.stringify(body.messages ?? ''));
    const completionTokens = reply.outputTokens ?? estimateTokens(reply.text + (reply.reasoning ?? ''));
    data(response, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } });
  }
  data(response, '[DONE]');
  response.end();
}

function answerEmbeddings(response: http.ServerResponse, request: FakeRequest, options: FakeOpenAIOptions): void {
  const body = request.body as { model?: unknown; input?: unknown; encoding_format?: unknown };
  const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) && body.input.every((item) => typeof item === 'string') ? (body.input as string[]) : null;
  if (!inputs || typeof body.model !== 'string') {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'fake: model and input (string or array of strings) are required', type: 'invalid_request_error', code: null } }));
    return;
  }
  const base64 = options.embeddingEncoding === 'honour' && body.encoding_format === 'base64';
  const data = inputs.map((text, index) => {
    const vector = (options.embed ?? ((each: string) => fakeEmbedding(each)))(text, index);
    const embedding = base64 ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
}

export async function startFakeOpenAIServer(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const models = options.models ?? ['fake-small', 'fake-large'];
  const core = new FakeServerCore(options, async (request, response, server) => {
    if (request.method === 'GET' && request.path === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) }));
      return true;
    }
    if (request.method === 'POST' && request.path === '/v1/embeddings') {
      answerEmbeddings(response, request, options);
      return true;
    }
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') return false;
    const fault = server.takeFault();
    const answered = await server.answerEarlyFault(response, fault, (status) => ({
      error: { message: status.message ?? `fake: status ${status.status}`, type: status.errorType ?? 'invalid_request_error', code: null },
    }));
    if (answered) return true;
    const reply = server.script(request);
    await streamCompletion(response, reply, request, server as FakeOpenAIServer, fault);
    return true;
  }) as FakeOpenAIServer;
  core.reasoningStyle = options.reasoningStyle ?? 'reasoning_content';
  await core.listen(options.port);
  return core;
}
