// Traces (issue 65): a chat turn that calls a tool, exported to a loopback OTLP receiver over both
// protocols, yields `invoke_agent <persona>` with `chat <model>` and `execute_tool <name>` as its
// children, on the GenAI conventions' attributes; prompts and completions only when the
// conventions' variable asks — a secret typed in the message is nowhere in what was sent otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { ownerActor } from '@/lib/people/rights';
import { closeDb } from '@/lib/store/db';
import { startTracing, stopTracing, tracingWanted } from '@/lib/telemetry/traces';
import { ensureWorkspace } from '@/lib/tools/workspace';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import type { FakeRequest } from '@/test/fakes/fake-server-core';
import { mindScript } from '@/test/fakes/mind-script';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@/test/fakes/otlp-receiver';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const SECRET = 'canary-pass-7Q2XK9';
let fake: FakeOpenAIServer;

const toolResults = (request: FakeRequest) => ((request.body as { messages?: { role: string }[] }).messages ?? []).filter((message) => message.role === 'tool').length;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({
    script: (request) => {
      if (request.system.includes('You are the Subconscious')) return mindScript(request);
      const card = request.lastUserText.includes('[[card]]');
      if (toolResults(request) === 0) return { text: '', toolCalls: [card ? { name: 'bash', input: { command: 'echo traced', explanation: 'a card' } } : { name: 'list_files', input: {} }] };
      if (card) return { text: '<ID_loud>It said traced.</ID_loud><ID_quiet>ran</ID_quiet>' };
      return { text: '<ID_loud>One file: a.txt.</ID_loud><ID_quiet>listed</ID_quiet>' };
    },
  });
});
afterAll(async () => {
  await fake.close();
});

const OTEL_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_SERVICE_NAME', 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'];
afterEach(() => {
  for (const name of OTEL_VARIABLES) delete process.env[name];
});

/** One turn with a tool call, traced to a receiver of its own with these variables: what it received. */
async function tracedTurn(variables: Record<string, string>, options: { card?: boolean } = {}): Promise<{ spans: ReceivedSpan[]; receiver: OtlpReceiver }> {
  const receiver = await startOtlpReceiver();
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...variables });
  expect(await startTracing()).toBe(true);
  const orchestrator = new Orchestrator();
  const events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
  try {
    const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { tools: options.card ? ['bash'] : ['list_files'] } });
    fs.writeFileSync(path.join(ensureWorkspace(session.id, dirs.dataDir), 'a.txt'), 'a');
    await orchestrator.sendUserMessage(session.id, { text: options.card ? '[[card]] Run it.' : `Which files are there? My password is ${SECRET}.` });
    if (options.card) {
      const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.status === 'awaiting_approval', timeoutMs: 15_000 });
      await orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', args_hash: card.call.args_hash, session_id: session.id }, await ownerActor());
    }
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id && !event.spontaneous, timeoutMs: 15_000 });
    expect(end.outcome).toBe('complete');
    await orchestrator.stop();
  } finally {
    events.close();
    await stopTracing(); // sends what is waiting
    await closeDb();
    await receiver.close();
  }
  return { spans: receiver.spans, receiver };
}

describe('traces on the GenAI conventions', () => {
  it('off unless asked: no endpoint, no tracing', async () => {
    expect(tracingWanted({} as unknown as NodeJS.ProcessEnv)).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' } as unknown as NodeJS.ProcessEnv)).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' } as unknown as NodeJS.ProcessEnv)).toBe(false);
    expect(await startTracing()).toBe(false);
  });

  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`a turn with a tool call over ${protocol}: invoke_agent → chat ×2 and execute_tool, their attributes, no content by default`, async () => {
      const { spans, receiver } = await tracedTurn({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_SERVICE_NAME: 'agentcsd-test', OTEL_EXPORTER_OTLP_HEADERS: 'x-team=minds' });
      expect(receiver.contentTypes.every((type) => type.startsWith(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'))).toBe(true);
      expect(receiver.headers.every((headers) => headers['x-team'] === 'minds')).toBe(true);

      const turn = spans.find((span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'internal');
      expect(turn, spans.map((span) => span.name).join(', ')).toBeDefined();
      expect(turn!.service).toBe('agentcsd-test');
      expect(turn!.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'tester' });
      const children = spans.filter((span) => span.parentSpanId === turn!.spanId);
      const chats = children.filter((span) => span.name === 'chat fake-large');
      expect(chats).toHaveLength(2);
      for (const chat of chats) {
        expect(chat.traceId).toBe(turn!.traceId);
        expect(chat.kind).toBe(3); // CLIENT
        expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'fake-large', 'gen_ai.request.max_tokens': 256, 'agentcsd.layer': 'internal' });
        expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
        expect(chat.attributes['gen_ai.response.finish_reasons']).toHaveLength(1);
        expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
      }
      const tool = children.find((span) => span.name === 'execute_tool list_files');
      expect(tool?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'list_files', 'agentcsd.tool.status': 'succeeded' });
      expect(String(tool!.attributes['gen_ai.tool.call.id'])).not.toBe('');
      expect(tool!.attributes['agentcsd.tool.decided_by']).toMatch(/^rule:/);
      // The Subconscious's cycles are traces of their own, on the same conventions.
      expect(spans.some((span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'subconscious')).toBe(true);
      // Content is off: the secret typed in the message is in nothing that was sent.
      expect(Buffer.concat(receiver.bodies).includes(SECRET)).toBe(false);
    }, 30_000);
  }

  it('a card: its wait is a span of its own beside the run it led to, with the decision and who made it', async () => {
    const { spans } = await tracedTurn({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, { card: true });
    const turn = spans.find((span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'internal');
    const wait = spans.find((span) => span.name === 'await_approval bash');
    const run = spans.find((span) => span.name === 'execute_tool bash');
    expect(wait?.parentSpanId).toBe(turn!.spanId);
    expect(run?.parentSpanId).toBe(turn!.spanId);
    expect(wait!.attributes).toMatchObject({ 'gen_ai.tool.name': 'bash', 'agentcsd.tool.status': 'approved', 'agentcsd.tool.decision': 'approve' });
    expect(wait!.attributes['gen_ai.tool.call.id']).toBe(run!.attributes['gen_ai.tool.call.id']);
    expect(wait!.attributes['agentcsd.tool.waited_ms']).toBeGreaterThanOrEqual(0);
    expect(run!.attributes).toMatchObject({ 'agentcsd.tool.decision': 'approve', 'agentcsd.tool.decided_by': wait!.attributes['agentcsd.tool.decided_by'], 'agentcsd.tool.status': 'succeeded' });
  }, 30_000);

  it('content only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: the prompt and the answer on the chat spans', async () => {
    const { spans } = await tracedTurn({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    const answer = spans.filter((span) => span.name === 'chat fake-large').find((span) => String(span.attributes['gen_ai.output.messages']).includes('One file: a.txt.'));
    expect(answer).toBeDefined();
    expect(String(answer!.attributes['gen_ai.input.messages'])).toContain(SECRET);
  }, 30_000);
});

describe('what leaves in a span, whoever made it (issue 72 §3)', () => {
  /** A span as Next.js makes its own (the global tracer), with a query, a URL secret and an exception. */
  async function nextLikeSpan(variables: Record<string, string>): Promise<string> {
    const receiver = await startOtlpReceiver();
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...variables });
    expect(await startTracing()).toBe(true);
    try {
      const { trace: api, SpanStatusCode } = await import('@opentelemetry/api');
      const span = api.getTracer('next.js').startSpan('GET /api/memories?q=sister+diary', {
        attributes: {
          'http.url': 'http://127.0.0.1:3000/api/memories?q=sister+diary',
          'http.target': '/api/memories?q=sister+diary',
          'url.full': 'http://127.0.0.1:3000/api/memories?q=sister+diary#top',
          'url.query': 'q=sister+diary',
          'next.mcp': 'connecting https://alice:hunter2@mcp.example.test/mcp?api_key=MCP-URL-SECRET',
        },
      });
      span.recordException(new TypeError('the diary says SECRET-IN-MESSAGE'));
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the diary says SECRET-IN-MESSAGE' });
      span.end();
    } finally {
      await stopTracing();
      await receiver.close();
    }
    return Buffer.concat(receiver.bodies).toString('utf8');
  }

  it('content off: bare URLs everywhere, exceptions by kind only', async () => {
    const sent = await nextLikeSpan({});
    for (const secret of ['sister', 'diary', 'hunter2', 'alice:', 'MCP-URL-SECRET', 'SECRET-IN-MESSAGE', '#top']) expect(sent, secret).not.toContain(secret);
    expect(sent).toContain('http://127.0.0.1:3000/api/memories');
    expect(sent).toContain('https://mcp.example.test/mcp');
    expect(sent).toContain('GET /api/memories');
    expect(sent).toContain('TypeError'); // the exception's kind stays
  });

  it('content on: the exception’s message travels, the URLs are bare all the same', async () => {
    const sent = await nextLikeSpan({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    expect(sent).toContain('SECRET-IN-MESSAGE');
    for (const secret of ['sister+diary', 'hunter2', 'MCP-URL-SECRET']) expect(sent, secret).not.toContain(secret);
  });
});
