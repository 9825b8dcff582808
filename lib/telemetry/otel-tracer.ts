// The OpenTelemetry side of traces.ts, loaded only when tracing is on (issue 65). The current span
// is kept in AsyncLocalStorage (the SDK's context manager), so a span opened inside another's work
// is its child through every await; the sampler is the one OTEL_TRACES_SAMPLER names (parent-based,
// always on, by default); the exporter is OTLP over HTTP, protobuf unless
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says `http/json`, and reads its endpoint and headers from the
// standard variables itself. Names and attributes are the semantic-conventions package's where it
// has one; what it has not (our cost, the layer, the decision) is `agentcsd.*`.
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
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
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { ChatOutcome, SpanFacts, TraceSpan, Tracer } from './span-facts';

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
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    sampler: samplerFromEnv(),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('agentcsd');
  return {
    inSpan: (facts, run) => {
      const { name, kind, attributes } = opening(facts);
      return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
        try {
          return await run(handle(span));
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
