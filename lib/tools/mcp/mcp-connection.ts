// One of the user's MCP servers, kept connected: started once and long-lived, restarted with
// backoff after a crash (a call meanwhile is an error result at once, never a hang), each call
// with a timeout that progress notifications reset, cancelled when the turn's Stop fires, and
// its result capped with a marker before it reaches the model.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { errorOutcome, type ToolOutcome } from '@/lib/tools/tool-types';
import { isHttpServer, type McpServerConfig } from '@/lib/config/mcp-config';
import { ProcessGroupStdioTransport } from './stdio-transport';

export type McpServerState = 'stopped' | 'starting' | 'ready' | 'failed';
export type { McpToolInfo };

export interface McpConnectionOptions {
  /** Time to connect and list tools. */
  connectTimeoutMs?: number;
  /** A call with no result and no progress for this long ends as an error. */
  callTimeoutMs?: number;
  /** However much progress it reports, a call ends after this long. */
  callMaxMs?: number;
  /** Waits before reconnecting after a crash: 1 s, 2 s, 4 s … up to the last. */
  backoffMs?: readonly number[];
  /** Characters of one result kept; the rest is cut with a marker. */
  resultCapChars?: number;
  onChange?: () => void;
}

const DEFAULT_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 60_000] as const;
/** A connection that stayed up this long starts its backoff from the beginning again. */
const HEALTHY_AFTER_MS = 30_000;
export const MCP_RESULT_CAP_CHARS = 100_000;

/** An error's message with its cause (fetch's "fetch failed" says nothing without it). */
function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ((error.cause as NodeJS.ErrnoException).code ?? error.cause.message) : null;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

export class McpConnection {
  state: McpServerState = 'stopped';
  lastError: string | null = null;
  tools: McpToolInfo[] = [];
  restarts = 0;
  nextRetryAt: number | null = null;

  private client: Client | null = null;
  private transport: Transport | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private connectedAt = 0;
  /** The transport's last complaint (a stdio server's exit code and stderr). */
  private transportError: string | null = null;
  private attempt = 0;
  private stopped = true;
  private readonly options: Required<Omit<McpConnectionOptions, 'onChange'>> & Pick<McpConnectionOptions, 'onChange'>;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    options: McpConnectionOptions = {},
  ) {
    this.options = {
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      callMaxMs: options.callMaxMs ?? 600_000,
      backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
      resultCapChars: options.resultCapChars ?? MCP_RESULT_CAP_CHARS,
      onChange: options.onChange,
    };
  }

  get pid(): number | null {
    return this.transport instanceof ProcessGroupStdioTransport ? this.transport.pid : null;
  }

  /** Connects (once; concurrent callers share the attempt) and lists the tools. */
  start(): Promise<void> {
    this.stopped = false;
    if (this.state === 'ready') return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** Now, whatever the backoff says (Settings' Test button). */
  async restart(): Promise<void> {
    await this.disconnect();
    this.attempt = 0;
    return this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.disconnect();
    this.state = 'stopped';
    this.changed();
  }

  private async connect(): Promise<void> {
    this.clearRetry();
    this.state = 'starting';
    this.transportError = null;
    this.changed();
    const transport = this.createTransport();
    const client = new Client({ name: 'agentcsd', version: '0.1.0' }, { capabilities: {} });
    this.transport = transport;
    this.client = client;
    client.onclose = () => this.lost(client);
    client.onerror = (error) => {
      if (this.client === client) this.transportError = message(error);
    };
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
      const listed = await client.listTools(undefined, { timeout: this.options.connectTimeoutMs });
      if (this.client !== client) return; // stopped or restarted meanwhile
      this.tools = listed.tools;
      this.state = 'ready';
      this.lastError = null;
      this.connectedAt = Date.now();
      this.changed();
    } catch (error) {
      if (this.client !== client) return;
      const stderr = transport instanceof ProcessGroupStdioTransport ? transport.stderr() : '';
      this.fail(`could not start: ${message(error)}${stderr ? ` — stderr: ${stderr.slice(-500)}` : ''}`);
      this.client = null;
      this.transport = null;
      await client.close().catch(() => undefined);
    }
  }

  private createTransport(): Transport {
    const config = this.config;
    if (isHttpServer(config)) return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    return new ProcessGroupStdioTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd });
  }

  /** The connection closed: a crash unless we closed it. */
  private lost(client: Client): void {
    if (this.client !== client) return;
    const transport = this.transport;
    const stderr = transport instanceof ProcessGroupStdioTransport ? transport.stderr() : '';
    this.client = null;
    this.transport = null;
    if (this.stopped) return;
    const during = this.state === 'starting' ? 'could not start: ' : '';
    this.fail(during + (this.transportError ?? `the connection closed${stderr ? ` — stderr: ${stderr.slice(-500)}` : ''}`));
  }

  private fail(reason: string): void {
    this.state = 'failed';
    this.lastError = reason;
    if (this.connectedAt && Date.now() - this.connectedAt > HEALTHY_AFTER_MS) this.attempt = 0;
    this.connectedAt = 0;
    if (!this.stopped) {
      const wait = this.options.backoffMs[Math.min(this.attempt, this.options.backoffMs.length - 1)]!;
      this.attempt++;
      this.nextRetryAt = Date.now() + wait;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.nextRetryAt = null;
        this.restarts++;
        void this.start();
      }, wait);
      this.retryTimer.unref();
    }
    this.changed();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.nextRetryAt = null;
  }

  private async disconnect(): Promise<void> {
    this.clearRetry();
    const client = this.client;
    this.client = null;
    this.transport = null;
    this.connectedAt = 0;
    this.state = 'stopped';
    if (client) await client.close().catch(() => undefined);
  }

  private changed(): void {
    this.options.onChange?.();
  }

  /** Calls one tool; every failure is an error result the model reads, never a throw. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    context: { signal: AbortSignal; onProgress?: (progress: { progress: number; total?: number; message?: string }) => void },
  ): Promise<ToolOutcome> {
    const client = this.client;
    if (this.state !== 'ready' || !client) {
      const retry = this.nextRetryAt ? ` (retrying in ${Math.max(1, Math.round((this.nextRetryAt - Date.now()) / 1000))} s)` : '';
      return errorOutcome(`MCP server "${this.name}" is not running${retry}${this.lastError ? `: ${this.lastError}` : ''}`);
    }
    try {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: context.signal,
        timeout: this.options.callTimeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.options.callMaxMs,
        // Asking for progress is what makes the server send it (and keeps a long call alive).
        onprogress: (progress) => context.onProgress?.(progress),
      })) as CallToolResult;
      const { text, dropped } = capResult(resultText(result), this.options.resultCapChars);
      return { isError: result.isError === true, content: text, ...(dropped > 0 && { droppedBytes: dropped }) };
    } catch (error) {
      if (context.signal.aborted) return errorOutcome(`Cancelled: the call to ${this.name} was stopped`, { cancelled: true });
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return errorOutcome(`MCP server "${this.name}" did not answer ${tool} in time (${message(error)})`, { timedOut: true });
      }
      return errorOutcome(`MCP server "${this.name}" failed on ${tool}: ${message(error)}`);
    }
  }
}

/** What the model reads of a result: text as is, other blocks as one line that says what they were. */
export function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes, not shown]`;
      case 'resource':
        return 'text' in block.resource && typeof block.resource.text === 'string' ? block.resource.text : `[resource ${block.resource.uri}${block.resource.mimeType ? ` (${block.resource.mimeType})` : ''}, binary, not shown]`;
      case 'resource_link':
        return `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ''}]`;
      default:
        return `[${(block as { type: string }).type} block]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

export function capResult(text: string, cap: number): { text: string; dropped: number } {
  if (text.length <= cap) return { text, dropped: 0 };
  const dropped = text.length - cap;
  return { text: `${text.slice(0, cap)}\n[… ${dropped} more characters cut: the result was longer than ${cap} …]`, dropped };
}
