// The Claude Code CLI's `--output-format stream-json` lines (shared/reference/PROTOCOLS.md), each
// validated with zod, and a pure interpreter that turns them into StreamParts. Known line types
// are checked strictly where we read them; unknown types from newer CLIs are ignored.
import { z } from 'zod';
import { BackendError, errorFromStatus } from './backend-error';
import type { FinishReason, StreamPart } from './model-backend';
import { mapAnthropicStopReason } from './anthropic-backend';

const usageSchema = z
  .object({
    input_tokens: z.number().default(0),
    output_tokens: z.number().default(0),
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
  })
  .passthrough();

const streamEventSchema = z
  .object({
    type: z.literal('stream_event'),
    event: z
      .object({
        type: z.string(),
        delta: z.object({ type: z.string().optional(), text: z.string().optional(), thinking: z.string().optional(), stop_reason: z.string().nullish() }).passthrough().optional(),
        message: z.object({ id: z.string() }).passthrough().optional(),
      })
      .passthrough(),
    api_message_id: z.string().optional(),
  })
  .passthrough();

const assistantSchema = z
  .object({
    type: z.literal('assistant'),
    message: z
      .object({
        id: z.string(),
        model: z.string(),
        content: z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()),
      })
      .passthrough(),
    api_error_status: z.number().nullish(),
  })
  .passthrough();

const resultSchema = z
  .object({
    type: z.literal('result'),
    subtype: z.string(),
    is_error: z.boolean(),
    result: z.string().optional(),
    total_cost_usd: z.number().optional(),
    usage: usageSchema.optional(),
    stop_reason: z.string().nullish(),
    terminal_reason: z.string().optional(),
    api_error_status: z.number().nullish(),
  })
  .passthrough();

/** The CLI retries 429/529/5xx itself and announces each wait (seen with CLI 2.1.330). */
const apiRetrySchema = z
  .object({
    type: z.literal('system'),
    subtype: z.literal('api_retry'),
    attempt: z.number().int(),
    max_retries: z.number().int().optional(),
    retry_delay_ms: z.number().min(0),
    error_status: z.number().nullish(),
    error: z.string().optional(),
  })
  .passthrough();

/** The first line: among others, the MCP servers and whether each is connected. */
const initSchema = z
  .object({
    type: z.literal('system'),
    subtype: z.literal('init'),
    mcp_servers: z.array(z.object({ name: z.string(), status: z.string() }).passthrough()).optional(),
  })
  .passthrough();

export type CliLine =
  | z.infer<typeof apiRetrySchema>
  | z.infer<typeof initSchema>
  | z.infer<typeof streamEventSchema>
  | z.infer<typeof assistantSchema>
  | z.infer<typeof resultSchema>
  | { type: 'other'; original: string }
  | { type: 'invalid'; reason: string };

const schemas: Record<string, z.ZodType> = { stream_event: streamEventSchema, assistant: assistantSchema, result: resultSchema };

export function parseCliLine(line: string): CliLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { type: 'invalid', reason: `not JSON: ${line.slice(0, 120)}` };
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    return { type: 'invalid', reason: 'a line without a "type"' };
  }
  const type = (value as { type: string }).type;
  // Of the system lines only the retry notice is read; init and others pass as 'other'.
  const subtype = (value as { subtype?: unknown }).subtype;
  const schema = type === 'system' ? (subtype === 'api_retry' ? apiRetrySchema : subtype === 'init' ? initSchema : undefined) : schemas[type];
  if (!schema) return { type: 'other', original: type };
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { type: 'invalid', reason: `${type} line: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  return parsed.data as CliLine;
}

function retryErrorOf(line: z.infer<typeof apiRetrySchema>): BackendError {
  const message = `Claude Code CLI retry ${line.attempt}${line.max_retries ? ` of ${line.max_retries}` : ''}: ${line.error ?? 'API error'}${line.error_status ? ` (HTTP ${line.error_status})` : ''}`;
  return line.error_status ? errorFromStatus({ status: line.error_status, message }) : new BackendError({ kind: 'server', message });
}

/** Turns CLI lines into stream parts. Synthetic error messages are never model output. */
export class CliStreamInterpreter {
  private readonly streamedMessages = new Set<string>();
  private currentMessageId: string | undefined;
  private syntheticError: string | undefined;
  private stopReason: string | null = null;
  result: z.infer<typeof resultSchema> | undefined;
  producedOutput = false;

  /** `toolServer`: the MCP server the call depends on; anything but "connected" at init is an error. */
  constructor(private readonly options: { toolServer?: string } = {}) {}

  accept(line: CliLine): StreamPart[] {
    switch (line.type) {
      case 'stream_event':
        return this.acceptStreamEvent(line);
      case 'assistant':
        return this.acceptAssistant(line);
      case 'result':
        this.result = line;
        return this.acceptResult(line);
      case 'system':
        if (line.subtype === 'init') return this.acceptInit(line);
        return [{ type: 'retry', attempt: line.attempt, delayMs: line.retry_delay_ms, error: retryErrorOf(line) }];
      case 'other':
        return [];
      case 'invalid':
        return [{ type: 'error', error: new BackendError({ kind: 'protocol', message: `Claude Code CLI printed an unexpected line (${line.reason})` }) }];
    }
  }

  private acceptInit(line: z.infer<typeof initSchema>): StreamPart[] {
    const wanted = this.options.toolServer;
    if (!wanted) return [];
    const server = line.mcp_servers?.find((candidate) => candidate.name === wanted);
    if (server?.status === 'connected') return [];
    return [
      {
        type: 'error',
        error: new BackendError({
          kind: 'tool_server_unavailable',
          message: `The Claude Code CLI could not use the app's tools: its MCP server "${wanted}" is ${server ? `"${server.status}"` : 'missing'}. Not answering without them.`,
        }),
      },
    ];
  }

  private acceptStreamEvent(line: z.infer<typeof streamEventSchema>): StreamPart[] {
    const event = line.event;
    const parts: StreamPart[] = [];
    if (event.type === 'message_start' && event.message) {
      // A run with tools writes several messages: each after the first starts a new paragraph.
      if (this.producedOutput && this.currentMessageId !== event.message.id) parts.push({ type: 'text-delta', text: '\n\n' });
      this.currentMessageId = event.message.id;
      return parts;
    }
    const messageId = line.api_message_id ?? this.currentMessageId;
    if (event.type === 'content_block_delta' && event.delta) {
      if (event.delta.type === 'text_delta' && event.delta.text) {
        if (messageId) this.streamedMessages.add(messageId);
        this.producedOutput = true;
        return [{ type: 'text-delta', text: event.delta.text }];
      }
      if (event.delta.type === 'thinking_delta' && event.delta.thinking) {
        if (messageId) this.streamedMessages.add(messageId);
        return [{ type: 'reasoning-delta', text: event.delta.thinking }];
      }
    }
    if (event.type === 'message_delta' && event.delta?.stop_reason) this.stopReason = event.delta.stop_reason;
    return [];
  }

  private acceptAssistant(line: z.infer<typeof assistantSchema>): StreamPart[] {
    const text = line.message.content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
    if (line.message.model === '<synthetic>') {
      this.syntheticError = text;
      return [];
    }
    // Without partial messages (or if they were lost) the whole text arrives here once.
    if (this.streamedMessages.has(line.message.id) || !text) return [];
    this.streamedMessages.add(line.message.id);
    const separator = this.producedOutput ? '\n\n' : '';
    this.producedOutput = true;
    return [{ type: 'text-delta', text: `${separator}${text}` }];
  }

  private acceptResult(line: z.infer<typeof resultSchema>): StreamPart[] {
    const parts: StreamPart[] = [];
    if (line.usage) {
      parts.push({
        type: 'usage',
        usage: {
          inputTokens: line.usage.input_tokens,
          outputTokens: line.usage.output_tokens,
          cacheReadTokens: line.usage.cache_read_input_tokens ?? 0,
          cacheWriteTokens: line.usage.cache_creation_input_tokens ?? 0,
          costUsd: line.total_cost_usd ?? 'unknown',
        },
      });
    }
    if (line.is_error) {
      const message = line.result ?? this.syntheticError ?? `Claude Code CLI failed (${line.subtype})`;
      const error = line.api_error_status
        ? errorFromStatus({ status: line.api_error_status, message })
        : new BackendError({ kind: 'cli_failed', message: `${message}${line.terminal_reason ? ` (${line.terminal_reason})` : ''}` });
      parts.push({ type: 'error', error });
      return parts;
    }
    const raw = line.stop_reason ?? this.stopReason;
    const reason: FinishReason = mapAnthropicStopReason(raw);
    parts.push({ type: 'finish', reason, rawReason: raw ?? null });
    return parts;
  }
}
