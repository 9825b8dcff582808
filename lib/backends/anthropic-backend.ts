// Anthropic Messages API through the official SDK, streaming. SDK retries are off: the one retry
// policy lives in retry-policy.ts. The static system prefix carries cache_control.
import type Anthropic from '@anthropic-ai/sdk';
import { endpointOrigin, environmentAnthropicKey, environmentKeyOrigins } from '@/lib/config/key-scope';
import { BackendError, connectionLost, errorFromStatus, isAbortError, parseRetryAfter } from './backend-error';
import { parseToolInput, type BackendMessage, type BackendRequest, type BackendTool, type ContentBlock, type FinishReason, type ModelBackend, type StreamPart, type SystemSegment } from './model-backend';
import { deprecationOf, withDeprecation, type ModelListing } from '@/lib/config/model-catalog';
import { estimateCost } from './pricing';
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

export interface AnthropicBackendOptions {
  apiKey?: string;
  baseURL?: string;
  timeoutMs?: number;
}

export function mapAnthropicStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** The API allows 4 cache breakpoints per request. */
const maxBreakpoints = 4;
const ephemeral = { cache_control: { type: 'ephemeral' as const } };

/** The segments flagged as the end of a cacheable prefix carry a breakpoint. */
export function toAnthropicSystem(system: SystemSegment[]): Anthropic.TextBlockParam[] {
  return system.filter((segment) => segment.text.length > 0).map((segment) => ({ type: 'text' as const, text: segment.text, ...(segment.cache && ephemeral) }));
}

/**
 * Messages, a message with cache boundaries cut into text blocks that end there, so the same
 * text is always cut the same way; the newest boundaries carry breakpoints, within what the
 * system prompt left of the 4. The API reads the longest prefix an earlier call wrote (its
 * breakpoints, and block ends up to 20 blocks before a breakpoint), so the boundary where the
 * last call ended reads that back and the one at the new end writes the next call's.
 */
export function toAnthropicMessages(messages: BackendMessage[], systemBreakpoints: number): Anthropic.MessageParam[] {
  let left = maxBreakpoints - systemBreakpoints;
  // A turn's steps (blocks: tool calls, results, images) grow at the end: the newest user message
  // writes the prefix for the next step, the one that ended the step before reads it back. A
  // first step is not marked: most turns end there, and a write costs 1.25× what it caches.
  let stepMarks = messages.length > 1 ? 2 : 0;
  const converted: Anthropic.MessageParam[] = [];
  for (const message of [...messages].reverse()) {
    if (message.blocks) {
      const content = message.blocks.map(toAnthropicBlock);
      if (message.role === 'user' && stepMarks > 0 && left > 0 && content.length > 0) {
        Object.assign(content[content.length - 1]!, ephemeral);
        stepMarks--;
        left--;
      }
      converted.push({ role: message.role, content });
      continue;
    }
    const boundaries = [...new Set(message.cacheBoundaries ?? [])].filter((at) => at > 0 && at <= message.content.length).sort((a, b) => a - b);
    if (boundaries.length === 0) {
      converted.push({ role: message.role, content: message.content });
      continue;
    }
    const marked = new Set(left > 0 ? boundaries.slice(-left) : []);
    left -= marked.size;
    const blocks: Anthropic.TextBlockParam[] = [];
    let start = 0;
    for (const end of boundaries) {
      blocks.push({ type: 'text', text: message.content.slice(start, end), ...(marked.has(end) && ephemeral) });
      start = end;
    }
    if (start < message.content.length) blocks.push({ type: 'text', text: message.content.slice(start) });
    converted.push({ role: message.role, content: blocks });
  }
  return converted.reverse();
}

export function toAnthropicBlock(block: ContentBlock): Anthropic.ContentBlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool-call':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
    case 'document':
      return { type: 'document', source: { type: 'base64', media_type: block.mediaType, data: block.data }, title: block.label };
    case 'tool-result':
      if (!block.images?.length) return { type: 'tool_result', tool_use_id: block.callId, content: block.content, is_error: block.isError };
      return {
        type: 'tool_result',
        tool_use_id: block.callId,
        content: [{ type: 'text', text: block.content }, ...block.images.map((image) => toAnthropicBlock(image) as Anthropic.ImageBlockParam)],
        is_error: block.isError,
      };
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

export function toAnthropicTools(tools: BackendTool[]): Anthropic.Tool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as Anthropic.Tool.InputSchema }));
}

type AnthropicSdk = typeof Anthropic;

/**
 * The SDK is loaded when a backend is first made, not when the app starts: an app on the CLI or a
 * local server never pays its memory (issue 43 §4). The module loader keeps it once loaded.
 */
function loadSdk(): Promise<AnthropicSdk> {
  return import('@anthropic-ai/sdk').then((module) => module.default);
}

export function toBackendError(error: unknown, sdk: AnthropicSdk): BackendError {
  const Anthropic = sdk;
  if (error instanceof BackendError) return error;
  if (error instanceof Anthropic.APIConnectionTimeoutError) return new BackendError({ kind: 'timeout', message: `Request timed out: ${error.message}` });
  if (error instanceof Anthropic.APIConnectionError) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return new BackendError({ kind: 'connection', message: `Cannot reach the Anthropic API: ${cause ?? error.message}` });
  }
  if (error instanceof Anthropic.APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const providerMessage = body?.error?.message ?? error.message;
    if (error.status === undefined) {
      // An `event: error` after the 200: the type names the cause.
      const type = body?.error?.type;
      const kind = type === 'overloaded_error' ? 'overloaded' : type === 'rate_limit_error' ? 'rate_limited' : type === 'api_error' ? 'server' : 'stream_interrupted';
      return new BackendError({ kind, message: providerMessage });
    }
    return errorFromStatus({ status: error.status, message: providerMessage, retryAfterMs: parseRetryAfter(error.headers) });
  }
  const lost = connectionLost(error);
  if (lost) return new BackendError({ kind: 'connection', message: `The connection to the Anthropic API closed mid-stream: ${lost}` });
  const message = errorText(error);
  return new BackendError({ kind: 'protocol', message: `Unexpected response from the Anthropic API: ${message}` });
}

const warnedModels = processSlot('backends.warned-models', () => new Set<string>()).value;

/**
 * The SDK prints a deprecation warning from inside `messages.create` on every call with a
 * deprecated model — every few seconds for a Subconscious. It is printed once per model per
 * process instead: the SDK's line is filtered during the synchronous part of the call (where it
 * is printed; nothing else runs then) and our own, with the end-of-life date, goes out once.
 */
export function withDeprecationWarningOnce<T>(model: string, create: () => T): T {
  const deprecation = deprecationOf(model);
  if (!deprecation) return create();
  if (!warnedModels.has(model)) {
    warnedModels.add(model);
    console.warn(`[anthropic] The model '${model}' is deprecated and reaches end of life on ${deprecation.endOfLife}${deprecation.replacement ? `: switch to ${deprecation.replacement}` : ''} (shown once per model)`);
  }
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith(`The model '${model}' is deprecated`)) return;
    warn(...args);
  };
  try {
    return create();
  } finally {
    console.warn = warn;
  }
}

export class AnthropicBackend implements ModelBackend {
  readonly kind = 'anthropic' as const;
  private readonly client: Promise<Anthropic>;
  private readonly hasKey: boolean;
  private readonly missingKeyMessage: string;

  constructor(options: AnthropicBackendOptions) {
    // The environment's key goes only to Anthropic's API or ANTHROPIC_BASE_URL (key-scope.ts).
    const apiKey = options.apiKey || environmentAnthropicKey(options.baseURL) || null;
    this.hasKey = apiKey !== null;
    this.missingKeyMessage =
      process.env.ANTHROPIC_API_KEY && options.baseURL
        ? `No Anthropic API key for ${endpointOrigin(options.baseURL) ?? options.baseURL}: ANTHROPIC_API_KEY is only sent to ${environmentKeyOrigins().join(' or ')}; type a key for this endpoint in Settings`
        : 'No Anthropic API key: set one in Settings or ANTHROPIC_API_KEY';
    this.client = loadSdk().then(
      (Anthropic) =>
        new Anthropic({
          apiKey,
          baseURL: options.baseURL,
          maxRetries: 0,
          timeout: options.timeoutMs ?? 10 * 60_000,
        }),
    );
    // A failed load is reported by the call that needs it.
    this.client.catch(() => undefined);
  }

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    let inputTokens = 0;
    let cacheReadTokens = 0;
    let cacheWriteTokens = 0;
    let outputTokens = 0;
    let rawReason: string | null = null;
    let sawStop = false;
    if (!this.hasKey) {
      yield {
        type: 'error',
        error: new BackendError({ kind: 'authentication', message: this.missingKeyMessage }),
      };
      return;
    }
    const system = toAnthropicSystem(request.system);
    const client = await this.client;
    try {
      const stream = await withDeprecationWarningOnce(request.model, () =>
        client.messages.create(
          {
            model: request.model,
            max_tokens: request.maxTokens,
            system,
            messages: toAnthropicMessages(request.messages, system.filter((block) => block.cache_control).length),
            ...(request.tools && request.tools.length > 0 && { tools: toAnthropicTools(request.tools) }),
            stream: true,
          },
          { signal },
        ),
      );
      // Tool calls by content block index: the arguments arrive as JSON fragments.
      const toolBlocks = new Map<number, { id: string; name: string; json: string }>();
      for await (const event of stream) {
        switch (event.type) {
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              toolBlocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
            }
            break;
          case 'content_block_stop': {
            const block = toolBlocks.get(event.index);
            if (block) {
              toolBlocks.delete(event.index);
              // A call without arguments sends only "" (or nothing): that is {}.
              yield { type: 'tool-call', id: block.id, name: block.name, ...parseToolInput(block.json) };
            }
            break;
          }
          case 'message_start': {
            const usage = event.message.usage;
            inputTokens = usage.input_tokens ?? 0;
            cacheReadTokens = usage.cache_read_input_tokens ?? 0;
            cacheWriteTokens = usage.cache_creation_input_tokens ?? 0;
            outputTokens = usage.output_tokens ?? 0;
            break;
          }
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') yield { type: 'text-delta', text: event.delta.text };
            else if (event.delta.type === 'input_json_delta') {
              const block = toolBlocks.get(event.index);
              if (block) block.json += event.delta.partial_json;
            }
            else if (event.delta.type === 'thinking_delta') yield { type: 'reasoning-delta', text: event.delta.thinking };
            break;
          case 'message_delta':
            rawReason = event.delta.stop_reason ?? rawReason;
            outputTokens = event.usage.output_tokens ?? outputTokens;
            if (event.usage.input_tokens != null) inputTokens = event.usage.input_tokens;
            break;
          case 'message_stop':
            sawStop = true;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      if (isAbortError(error, signal)) return;
      yield { type: 'error', error: toBackendError(error, await loadSdk()) };
      return;
    }
    if (signal.aborted) return;
    if (!sawStop) {
      yield { type: 'error', error: new BackendError({ kind: 'stream_interrupted', message: 'The Anthropic stream ended before message_stop' }) };
      return;
    }
    const usage = { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
    yield { type: 'usage', usage: { ...usage, costUsd: estimateCost(request.model, usage) } };
    yield { type: 'finish', reason: mapAnthropicStopReason(rawReason), rawReason };
  }

  /** The API's own list: active and deprecated models, the latter with their retirement date. */
  async listModels(signal: AbortSignal): Promise<ModelListing[]> {
    // Without a key for this endpoint nothing is asked of it, and the reason is the one a call gets.
    if (!this.hasKey) throw new BackendError({ kind: 'authentication', message: this.missingKeyMessage });
    const listings: ModelListing[] = [];
    for await (const model of (await this.client).models.list({ limit: 100 }, { signal })) {
      // Older API versions (and compatible proxies) omit the lifecycle fields.
      const info = model as Partial<Anthropic.ModelInfo> & { id: string };
      const listing: ModelListing = { id: info.id, ...(info.display_name && { label: info.display_name }), ...(info.max_input_tokens && { context_window: info.max_input_tokens }) };
      const deprecated = info.lifecycle === 'deprecated' ? { retiresAt: info.retires_at ?? null } : undefined;
      listings.push(withDeprecation(listing, new Date(), deprecated));
      if (listings.length >= 1000) break;
    }
    return listings;
  }
}
