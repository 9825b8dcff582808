// The OpenTelemetry side of traces.ts, loaded only when tracing is on (issue 65). The current span
// is kept in AsyncLocalStorage (the SDK's context manager), so a span opened inside another's work
// is its child through every await; the sampler is the one OTEL_TRACES_SAMPLER names (parent-based,
// always on, by default); the exporter is OTLP over HTTP, protobuf unless
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says `http/json`, and reads its endpoint and headers from the
// standard variables itself. Names and attributes are the semantic-conventions package's where it
// has one; what it has not (our cost, the layer, the decision) is `agentcsd.*`.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, RandomIdGenerator, TraceIdRatioBasedSampler, TracerProvider, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  MESSAGING_OPERATION_TYPE_VALUE_RECEIVE,
  MESSAGING_OPERATION_TYPE_VALUE_SEND,
} from '@opentelemetry/semantic-conventions/incubating';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { contentWanted, type ChatOutcome, type SpanFacts, type TaskEndFacts, type TraceSpan, type Tracer } from './span-facts';
import { ScrubbingExporter } from './span-scrub';

/** The provider a backend speaks to: an OpenAI-compatible server speaks OpenAI's API (Ollama, LM Studio, vLLM alike). */
const PROVIDERS: Record<string, string> = { anthropic: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC, claude_code_cli: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC, openai_compatible: GEN_AI_PROVIDER_NAME_VALUE_OPENAI };

/** The sampler OTEL_TRACES_SAMPLER (and _ARG) name, as the SDK specification lists them. */
export function samplerFromEnv(env: NodeJS.ProcessEnv = process.env): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const fraction = Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
  switch ((env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(fraction);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(fraction) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function opening(facts: SpanFacts): { name: string; kind: SpanKind; attributes: Attributes } {
  switch (facts.kind) {
    case 'agent':
      return {
        name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${facts.persona}`,
        kind: SpanKind.INTERNAL,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
          [ATTR_GEN_AI_AGENT_NAME]: facts.persona,
          [ATTR_GEN_AI_CONVERSATION_ID]: facts.sessionId,
          'agentcsd.layer': facts.layer,
          ...(facts.turnId && { 'agentcsd.turn_id': facts.turnId }),
          ...(facts.taskId && { 'agentcsd.task_id': facts.taskId }),
          ...(facts.cycle !== undefined && { 'agentcsd.cycle': facts.cycle }),
        },
      };
    case 'chat':
      return {
        name: `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${facts.model}`,
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
          [ATTR_GEN_AI_PROVIDER_NAME]: PROVIDERS[facts.backend] ?? facts.backend,
          [ATTR_GEN_AI_REQUEST_MODEL]: facts.model,
          [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: facts.maxTokens,
          [ATTR_GEN_AI_CONVERSATION_ID]: facts.sessionId,
          'agentcsd.backend': facts.backend,
          'agentcsd.layer': facts.layer,
        },
      };
    case 'tool':
      return {
        name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${facts.name}`,
        kind: SpanKind.INTERNAL,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
          [ATTR_GEN_AI_TOOL_NAME]: facts.name,
          [ATTR_GEN_AI_TOOL_CALL_ID]: facts.callId,
          [ATTR_GEN_AI_CONVERSATION_ID]: facts.sessionId,
          ...(facts.decision && { 'agentcsd.tool.decision': facts.decision }),
          ...(facts.decidedBy && { 'agentcsd.tool.decided_by': facts.decidedBy }),
        },
      };
    case 'approval':
      return {
        name: `await_approval ${facts.name}`,
        kind: SpanKind.INTERNAL,
        attributes: { [ATTR_GEN_AI_TOOL_NAME]: facts.name, [ATTR_GEN_AI_TOOL_CALL_ID]: facts.callId, [ATTR_GEN_AI_CONVERSATION_ID]: facts.sessionId },
      };
    case 'message':
      return { name: 'receive_message', kind: SpanKind.INTERNAL, attributes: { [ATTR_GEN_AI_CONVERSATION_ID]: facts.sessionId } };
    case 'door':
      return {
        name: `POST ${DOOR_ROUTES[facts.door]}`,
        kind: SpanKind.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: 'POST', [ATTR_HTTP_ROUTE]: DOOR_ROUTES[facts.door], [ATTR_GEN_AI_AGENT_NAME]: facts.persona, 'agentcsd.door': facts.door },
      };
    case 'speech':
      return {
        name: `${facts.operation} ${facts.model}`,
        kind: SpanKind.CLIENT,
        attributes: { [ATTR_GEN_AI_REQUEST_MODEL]: facts.model, 'server.address': facts.server, 'agentcsd.speech.operation': facts.operation, 'agentcsd.speech.bytes': facts.bytes },
      };
    case 'channel': {
      const send = facts.operation === 'send';
      return {
        name: `${send ? MESSAGING_OPERATION_TYPE_VALUE_SEND : MESSAGING_OPERATION_TYPE_VALUE_RECEIVE} ${facts.channel}`,
        kind: send ? SpanKind.PRODUCER : SpanKind.CONSUMER,
        attributes: {
          [ATTR_MESSAGING_SYSTEM]: facts.channel,
          [ATTR_MESSAGING_OPERATION_TYPE]: send ? MESSAGING_OPERATION_TYPE_VALUE_SEND : MESSAGING_OPERATION_TYPE_VALUE_RECEIVE,
          [ATTR_MESSAGING_DESTINATION_NAME]: facts.channelId,
          ...(facts.outboxId !== undefined && { [ATTR_MESSAGING_MESSAGE_ID]: String(facts.outboxId) }),
        },
      };
    }
  }
}

/** A task's root: `invoke_agent <persona>` from the task's making to its end, its steps' parent. */
function taskRoot(facts: TaskEndFacts): Attributes {
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
    [ATTR_GEN_AI_AGENT_NAME]: facts.persona,
    [ATTR_GEN_AI_AGENT_ID]: facts.taskId,
    [ATTR_GEN_AI_CONVERSATION_ID]: facts.sessionId,
    'agentcsd.layer': 'task',
    'agentcsd.task_id': facts.taskId,
    'agentcsd.task.status': facts.status,
    'agentcsd.task.steps': facts.steps,
    'agentcsd.cost_usd': facts.costUsd,
    ...(facts.parentTaskId && { 'agentcsd.task.parent_id': facts.parentTaskId }),
  };
}

/** The doors' routes, as their spans are named (the HTTP server conventions' `{method} {route}`). */
const DOOR_ROUTES = { openai: '/v1/chat/completions', mcp: '/mcp', acp: '/v1/agentcsd/sessions/{id}/messages' } as const;

/** The context a W3C `traceparent` names (a remote parent), or null when it is not one. */
export function remoteContext(traceparent: string): Context | null {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return null;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true });
}

/** Random ids, but the next span's may be set (a task's root, recorded when the task ends under the ids its steps already named). */
class SettableIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  next: { traceId: string; spanId: string } | null = null;
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
}

function chatAttributes(outcome: ChatOutcome): Attributes {
  return {
    ...(outcome.responseModel && { [ATTR_GEN_AI_RESPONSE_MODEL]: outcome.responseModel }),
    ...(outcome.inputTokens !== undefined && { [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: outcome.inputTokens }),
    ...(outcome.outputTokens !== undefined && { [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: outcome.outputTokens }),
    ...(outcome.cacheReadTokens && { [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: outcome.cacheReadTokens }),
    ...(outcome.cacheWriteTokens && { [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: outcome.cacheWriteTokens }),
    ...(outcome.finishReason && { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [outcome.finishReason] }),
    ...(typeof outcome.costUsd === 'number' && { 'agentcsd.cost_usd': outcome.costUsd }),
    ...(outcome.allowances?.length && { 'agentcsd.allowances': outcome.allowances }),
    ...(outcome.errorKind && { [ATTR_ERROR_TYPE]: outcome.errorKind }),
    ...(outcome.input !== undefined && { [ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify(outcome.input) }),
    ...(outcome.output !== undefined && { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: outcome.output }] }]) }),
  };
}

function handle(span: Span): TraceSpan {
  return {
    chat: (outcome) => {
      span.setAttributes(chatAttributes(outcome));
      if (outcome.errorKind) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorKind });
    },
    tool: (outcome) => {
      span.setAttributes({
        'agentcsd.tool.status': outcome.status,
        ...(outcome.decision && { 'agentcsd.tool.decision': outcome.decision }),
        ...(outcome.decidedBy && { 'agentcsd.tool.decided_by': outcome.decidedBy }),
        ...(outcome.waitedMs !== undefined && { 'agentcsd.tool.waited_ms': outcome.waitedMs }),
      });
      if (outcome.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.status });
    },
  };
}

export function createTracer(options: { serviceName: string }): Tracer {
  const protocol = (process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  const exporter = protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  const ids = new SettableIds();
  const provider = new TracerProvider({
    idGenerator: ids,
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    sampler: samplerFromEnv(),
    // Every span — ours and Next.js's own — leaves scrubbed: bare URLs; with content off, exceptions by kind (issue 72 §3).
    spanProcessors: [new BatchSpanProcessor({ exporter: new ScrubbingExporter(exporter, () => contentWanted()), scheduledDelayMillis: 1_000 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('agentcsd');
  return {
    inSpan: (facts, run) => {
      const { name, kind, attributes } = opening(facts);
      // Work another process or moment began continues under its span (a bad traceparent: under the current one).
      const parent = facts.kind === 'agent' && facts.parent ? remoteContext(facts.parent) : null;
      return tracer.startActiveSpan(name, { kind, attributes }, parent ?? context.active(), async (span) => {
        try {
          return await run(handle(span));
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) }); // floor 0: lib/errors is beside it
          throw error;
        } finally {
          span.end();
        }
      });
    },
    currentTraceparent: () => {
      const span = trace.getActiveSpan()?.spanContext();
      return span && trace.isSpanContextValid(span) ? `00-${span.traceId}-${span.spanId}-${(span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')}` : undefined;
    },
    record: (facts, traceparent) => {
      const [, traceId, spanId] = traceparent.split('-');
      ids.next = { traceId: traceId!, spanId: spanId! };
      let span: Span;
      try {
        // A root of its own: the ids come from the generator, not from whatever span is current.
        span = tracer.startSpan(`${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${facts.persona}`, { kind: SpanKind.INTERNAL, attributes: taskRoot(facts), startTime: facts.startedAt, root: true });
      } finally {
        ids.next = null;
      }
      if (facts.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: facts.error ?? 'failed' });
      span.end(facts.endedAt);
    },
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
