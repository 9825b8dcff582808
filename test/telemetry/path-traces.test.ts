// Traces of the ways in and out (issue 65 §2): a door's request, a channel's message in and a
// channel's reply out are spans of their own, and the turn a message starts is in the trace of the
// request or message that brought it; a model call carries the daily allowance that paid for it; a
// consolidation is `invoke_agent <persona>` with its model call beneath. Each against a loopback
// OTLP receiver, as traces.test.ts does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { BackendRequest } from '@/lib/backends/model-backend';
import { mergeChannelConfig, channelInputSchema } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { deliver, EventTap, reply } from '@/lib/http/door-conversation';
import { consolidationSystemPrompt } from '@/lib/memory/consolidation';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { replaceAllowances } from '@/lib/store/allowances-repository';
import { createApiKey } from '@/lib/store/api-keys-repository';
import { listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { closeDb } from '@/lib/store/db';
import { OWNER_ID } from '@/lib/store/people-repository';
import { inSpan, startTracing, stopTracing } from '@/lib/telemetry/traces';
import { ClaudeCodeCliBackend } from '@/lib/backends/claude-code-cli-backend';
import { consolidationAnswer } from '@/test/fakes/consolidation-script';
import { startFakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram } from '@/test/fakes/fake-telegram-server';
import { mindScript } from '@/test/fakes/mind-script';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@/test/fakes/otlp-receiver';
import { EventRecorder } from '@/test/support/event-recorder';
import { FakeClock, settle } from '@/test/support/fake-clock';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
});

/** A receiver, and tracing to it in this process until the case ends. */
async function traced(): Promise<OtlpReceiver> {
  const receiver = await startOtlpReceiver();
  closers.push(() => receiver.close());
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  expect(await startTracing()).toBe(true);
  closers.push(() => closeDb());
  closers.push(() => stopTracing());
  return receiver;
}

async function started(orchestrator: Orchestrator): Promise<Orchestrator> {
  await orchestrator.start();
  closers.push(() => orchestrator.stop());
  return orchestrator;
}

async function fakeModel() {
  const model = await startFakeOpenAIServer({ script: mindScript });
  closers.push(() => model.close());
  return { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
}

/** Spans sent within a few seconds (the exporter sends every second). */
async function sent(receiver: OtlpReceiver, what: string, where: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
  await expect.poll(() => receiver.spans.some(where), { timeout: 10_000, message: `${what}: ${receiver.spans.map((span) => span.name).join(', ')}` }).toBe(true);
  return receiver.spans.find(where)!;
}

const turnOf = (session: string) => (span: ReceivedSpan) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'internal' && span.attributes['gen_ai.conversation.id'] === session;

/** The environment of the processes whose HOME is `home` (the CLI a backend started for a call). */
function environOf(home: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const pairs = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]);
      if (pairs.some(([name, value]) => name === 'HOME' && value === home)) found.push(Object.fromEntries(pairs));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

describe('traces of the ways in and out', () => {
  it('a Claude Code CLI started for a call gets the call\'s trace context as TRACEPARENT', async () => {
    const receiver = await traced();
    const anthropic = await startFakeAnthropicServer({ script: () => ({ text: 'a reply that streams for a while '.repeat(6) }) });
    closers.push(() => anthropic.close());
    anthropic.chunkDelayMs = 60;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-traceparent-'));
    closers.push(async () => fs.rmSync(home, { recursive: true, force: true }));
    const backend = new ClaudeCodeCliBackend({ cliPath: path.resolve('node_modules/.bin/claude'), env: { HOME: home, ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'dummy-key' } });
    let seen: string | undefined;
    await inSpan({ kind: 'chat', backend: 'claude_code_cli', model: 'claude-haiku-4-5', sessionId: 'cli-call', layer: 'internal', maxTokens: 128 }, async () => {
      const request = { system: [{ text: 'You are the Internal Dialog.' }], messages: [{ role: 'user' as const, content: 'hi' }], model: 'claude-haiku-4-5', maxTokens: 128 };
      for await (const part of backend.stream(request, new AbortController().signal)) {
        seen ??= environOf(home).find((environ) => environ.TRACEPARENT)?.TRACEPARENT;
        if (part.type === 'error') throw part.error;
      }
    });
    const call = await sent(receiver, 'the call', (span) => span.name === 'chat claude-haiku-4-5');
    expect(seen).toBe(`00-${call.traceId}-${call.spanId}-01`);
  }, 30_000);

  it("a door's request is a server span; the message and its turn are its children; the model call names the allowance that paid", async () => {
    const receiver = await traced();
    const layer = await fakeModel();
    await replaceAllowances([{ id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 10_000_000, timeZone: 'UTC' }], new Date());
    const orchestrator = await started(new Orchestrator());
    const key = (await createApiKey({ name: 'laptop', personId: OWNER_ID, personas: ['tester'] })).key;
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
    const tap = new EventTap(orchestrator);
    const delivery = await deliver(orchestrator, key, 'tester', { door: 'openai', text: 'Hello through the door', conversation: null, sessionId: session.id });
    expect((await reply(tap, delivery, 'http://127.0.0.1:3000', { id: 'probe' })).text).not.toBe('');

    const door = await sent(receiver, 'the door', (span) => span.name === 'POST /v1/chat/completions');
    expect(door).toMatchObject({ kind: 2, parentSpanId: '', attributes: { 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'agentcsd.door': 'openai', 'gen_ai.agent.name': 'tester' } }); // SERVER
    const message = await sent(receiver, 'the message', (span) => span.name === 'receive_message');
    expect(message).toMatchObject({ traceId: door.traceId, parentSpanId: door.spanId, attributes: { 'gen_ai.conversation.id': session.id } });
    const turn = await sent(receiver, 'the turn', turnOf(session.id));
    expect(turn).toMatchObject({ traceId: door.traceId, parentSpanId: message.spanId });
    const chat = await sent(receiver, 'its model call', (span) => span.name === 'chat fake-large' && span.parentSpanId === turn.spanId);
    expect(chat.attributes['agentcsd.allowances']).toEqual(['app']);
  }, 30_000);

  it("a channel's message in is a consumer span the turn continues; each reply out a producer span of its own", async () => {
    const receiver = await traced();
    const layer = await fakeModel();
    const telegram = await startFakeTelegram();
    closers.push(() => telegram.close());
    const channelId = randomUUID();
    const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } });
    await saveChannel({ id: channelId, kind: 'telegram', name: input.name, enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    const orchestrator = await started(new Orchestrator({ channels: true }));
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 10_000 }).toBe('connected');
    const ana = { id: 4343, username: 'ana' };
    telegram.userWrites(ana, 'hello');
    await expect.poll(async () => (await listOpenPairings(channelId, new Date())).length, { timeout: 10_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));
    orchestrator.channels!.wake(channelId);
    telegram.userWrites(ana, 'Are you there?');
    await expect.poll(() => telegram.sent.filter((message) => message.chatId === String(ana.id)).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2); // "Paired", then the answer

    const message = await sent(receiver, 'the message', (span) => span.name === 'receive_message' && span.attributes['gen_ai.conversation.id'] === session.id);
    const received = receiver.spans.find((span) => span.spanId === message.parentSpanId);
    expect(received).toMatchObject({ name: 'receive telegram', kind: 5, attributes: { 'messaging.system': 'telegram', 'messaging.operation.type': 'receive', 'messaging.destination.name': channelId } }); // CONSUMER
    const turn = await sent(receiver, 'the turn', turnOf(session.id));
    expect(turn).toMatchObject({ traceId: received!.traceId, parentSpanId: message.spanId });
    const out = await sent(receiver, 'a reply out', (span) => span.name === 'send telegram');
    expect(out).toMatchObject({ kind: 4, attributes: { 'messaging.system': 'telegram', 'messaging.operation.type': 'send', 'messaging.destination.name': channelId } }); // PRODUCER
    expect(Number(out.attributes['messaging.message.id'])).toBeGreaterThan(0); // the outbox row
  }, 40_000);

  it('a consolidation is invoke_agent <persona> on the consolidation layer, its model call beneath', async () => {
    const receiver = await traced();
    const clock = new FakeClock();
    const isConsolidation = (request: BackendRequest) => request.system[0]?.text === consolidationSystemPrompt;
    const c = new ScriptedBackend([], { text: '<ID_loud>Noted.</ID_loud><ID_quiet>ok</ID_quiet>' });
    const s = new ScriptedBackend([], (request) => (isConsolidation(request) ? { text: consolidationAnswer(request.messages[0]!.content) } : { text: subconsciousReply() }));
    closers.push(async () => s.release());
    const orchestrator = await started(new Orchestrator({ clock, random: () => 0.5, createBackend: (config) => (config.model === 'c' ? c : s) }));
    const events = new EventRecorder(orchestrator.bus);
    closers.push(async () => events.close());
    const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 300, endpoint: 'http://127.0.0.1:9/v1' });
    // Dreaming ten minutes after the user left (`dream_after: 1`), not at night.
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer('c'), s_model: layer('s') }, params: { dream_after: 1 } });
    for (const text of ['I drink coffee every morning', 'My sister Ana lives in Lisbon']) {
      const ended = events.of('turn-end', session.id).length;
      await orchestrator.sendUserMessage(session.id, { text });
      await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, count: ended + 1 });
    }
    // Away: the Subconscious rests and consolidates.
    for (let elapsed = 0; elapsed < 16 * 60_000 && !events.of('memory-consolidation').some((event) => event.consolidation.status === 'done'); elapsed += 30_000) {
      await clock.advance(30_000);
      await settle(3);
    }
    await events.waitFor('memory-consolidation', { where: (event) => event.consolidation.status === 'done' });
    const consolidation = await sent(receiver, 'the consolidation', (span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'consolidation');
    expect(consolidation.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': session.id });
    const call = await sent(receiver, 'its model call', (span) => span.parentSpanId === consolidation.spanId);
    expect(call).toMatchObject({ name: 'chat s', attributes: { 'agentcsd.layer': 'memory' } });
  }, 40_000);
});
