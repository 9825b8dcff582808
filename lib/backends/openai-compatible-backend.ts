// Any OpenAI-compatible Chat Completions server (Ollama, LM Studio, vLLM, OpenAI) through the
// official SDK. Reasoning in `reasoning_content`, `reasoning` or inline <think> becomes
// reasoning-delta, never reply text.
import type OpenAI from 'openai';
import { BackendError, connectionLost, errorFromStatus, isAbortError, parseRetryAfter } from './backend-error';
import { systemText, type BackendMessage, type ContentBlock, type ImageBlock, type BackendRequest, type BackendTool, type FinishReason, type ModelBackend, type StreamPart } from './model-backend';
import { OpenAIToolCallAccumulator, mightBeLeakedCall, recoverLeakedToolCalls, type ToolCallFragment } from './openai-tool-calls';
import type { ModelListing } from '@/lib/config/model-catalog';
import { estimateCost } from './pricing';
import { ThinkTagSplitter } from './think-tag-splitter';
import { errorText } from '@/lib/errors/error-text';

export interface OpenAICompatibleBackendOptions {
  endpoint: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** Ollama's `http://localhost:11434` works as typed: a bare host gets `/v1`. */
export function normaliseBaseURL(endpoint: string): string {
  const url = new URL(endpoint.trim());
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  return url.toString().replace(/\/+$/, '');
}

export function mapOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

type OpenAISdk = typeof OpenAI;

/** The SDK is loaded when it is first needed, not when the app starts (issue 43 §4; the loader keeps it). */
export function loadOpenAISdk(): Promise<OpenAISdk> {
  return import('openai').then((module) => module.default);
}

function toBackendError(error: unknown, baseURL: string, OpenAI: OpenAISdk): BackendError {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new BackendError({ kind: 'timeout', message: `Request to ${baseURL} timed out` });
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    return new BackendError({ kind: 'connection', message: `Cannot reach ${baseURL}: ${cause?.code ?? cause?.message ?? error.message}` });
  }
  if (error instanceof OpenAI.APIError) {
    const body = error.error as { message?: string } | undefined;
    const providerMessage = body?.message ?? error.message;
    if (error.status === undefined) return new BackendError({ kind: 'stream_interrupted', message: providerMessage });
    return errorFromStatus({ status: error.status, message: providerMessage, retryAfterMs: parseRetryAfter(error.headers) });
  }
  const lost = connectionLost(error);
  if (lost) return new BackendError({ kind: 'connection', message: `The connection to ${baseURL} closed mid-stream: ${lost}` });
  const message = errorText(error);
  return new BackendError({ kind: 'protocol', message: `Unexpected response from ${baseURL}: ${message}` });
}

/** Messages in Chat Completions' shape: a step's calls on the assistant message, one `tool` message per result. */
export function toOpenAIMessages(messages: BackendMessage[]): OpenAI.ChatCompletionMessageParam[] {
  const converted: OpenAI.ChatCompletionMessageParam[] = [];
  for (const message of messages) {
    if (!message.blocks) {
      converted.push({ role: message.role, content: message.content });
      continue;
    }
    const text = message.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    if (message.role === 'assistant') {
      const calls = message.blocks.flatMap((block) => (block.type === 'tool-call' ? [block] : []));
      converted.push({
        role: 'assistant',
        content: text || null,
        ...(calls.length > 0 && {
          tool_calls: calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.input) } })),
        }),
      });
      continue;
    }
    for (const block of message.blocks) {
      if (block.type === 'tool-result') converted.push({ role: 'tool', tool_call_id: block.callId, content: block.isError ? `Error: ${block.content}` : block.content });
    }
    const parts = userParts(message.blocks);
    if (parts.length === 0) continue;
    converted.push({ role: 'user', content: parts.every((part) => part.type === 'text') ? parts.map((part) => part.text).join('') : parts });
  }
  return converted;
}

/**
 * A user message's parts: text, images as `image_url` data URLs, a PDF as its extracted text. A
 * `tool` message takes text only, so what a tool showed (`view_image`) follows in this message.
 */
function userParts(blocks: ContentBlock[]): OpenAI.ChatCompletionContentPart[] {
  const image = (block: ImageBlock): OpenAI.ChatCompletionContentPartImage => ({ type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } });
  const parts: OpenAI.ChatCompletionContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && block.text) parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(image(block));
    else if (block.type === 'document') parts.push({ type: 'text', text: `[${block.label}, its text:]\n${block.text}` });
  }
  const shown = blocks.flatMap((block) => (block.type === 'tool-result' ? (block.images ?? []) : []));
  if (shown.length > 0) parts.push({ type: 'text', text: `[What the tool calls above showed: ${shown.map((block) => block.label).join(', ')}]` }, ...shown.map(image));
  return parts;
}

export function toOpenAITools(tools: BackendTool[]): OpenAI.ChatCompletionTool[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }));
}

interface ReasoningDelta {
  tool_calls?: ToolCallFragment[] | null;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
}

export class OpenAICompatibleBackend implements ModelBackend {
  readonly kind = 'openai_compatible' as const;
  private readonly client: Promise<OpenAI>;
  private readonly baseURL: string;

  constructor(options: OpenAICompatibleBackendOptions) {
    this.baseURL = normaliseBaseURL(options.endpoint);
    const baseURL = this.baseURL;
    this.client = loadOpenAISdk().then(
      (OpenAI) =>
        new OpenAI({
          // Local servers ignore the key, but the SDK requires one.
          apiKey: options.apiKey || 'not-needed',
          baseURL,
          maxRetries: 0,
          timeout: options.timeoutMs ?? 10 * 60_000,
        }),
    );
    // A failed load is reported by the call that needs it.
    this.client.catch(() => undefined);
  }

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    const splitter = new ThinkTagSplitter();
    const tools = request.tools ?? [];
    const toolCalls = new OpenAIToolCallAccumulator();
    // With tools declared, text that starts like a call is held back until the end: it may be a
    // call the model leaked into its content.
    let heldText: string | null = tools.length > 0 ? '' : null;
    const text = function* (parts: Iterable<StreamPart>): Generator<StreamPart> {
      for (const part of parts) {
        if (part.type === 'text-delta' && heldText !== null) {
          heldText += part.text;
          if (mightBeLeakedCall(heldText)) continue;
          const released = heldText;
          heldText = null;
          yield { type: 'text-delta', text: released };
          continue;
        }
        yield part;
      }
    };
    let rawReason: string | null = null;
    let usage: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | undefined;
    const system = systemText(request.system);
    try {
      const stream = await (await this.client).chat.completions.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...toOpenAIMessages(request.messages)],
          ...(tools.length > 0 && { tools: toOpenAITools(tools) }),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = choice.delta as ReasoningDelta | undefined;
        const reasoning = delta?.reasoning_content ?? delta?.reasoning;
        if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
        if (delta?.content) yield* text(splitter.push(delta.content));
        for (const fragment of delta?.tool_calls ?? []) toolCalls.push(fragment);
        if (choice.finish_reason) rawReason = choice.finish_reason;
      }
    } catch (error) {
      if (isAbortError(error, signal)) return;
      yield { type: 'error', error: toBackendError(error, this.baseURL, await loadOpenAISdk()) };
      return;
    }
    if (signal.aborted) return;
    yield* text(splitter.flush());
    if (heldText) {
      const leaked = toolCalls.size === 0 ? recoverLeakedToolCalls(heldText, tools) : null;
      if (leaked) {
        yield* leaked;
        rawReason = 'tool_calls';
      } else yield { type: 'text-delta', text: heldText };
    }
    yield* toolCalls.finish();
    if (rawReason === null) {
      yield { type: 'error', error: new BackendError({ kind: 'stream_interrupted', message: `The stream from ${this.baseURL} ended without a finish reason` }) };
      return;
    }
    if (usage) {
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      const counts = {
        inputTokens: (usage.prompt_tokens ?? 0) - cached,
        outputTokens: usage.completion_tokens ?? 0,
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
      };
      yield { type: 'usage', usage: { ...counts, costUsd: estimateCost(request.model, counts) } };
    }
    yield { type: 'finish', reason: mapOpenAIFinishReason(rawReason), rawReason };
  }

  async listModels(signal: AbortSignal): Promise<ModelListing[]> {
    const page = await (await this.client).models.list({ signal });
    return page.data.map((model) => ({ id: model.id })).sort((a, b) => a.id.localeCompare(b.id));
  }
}
