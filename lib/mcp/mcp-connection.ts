// One of the user's MCP servers, kept connected: started once and long-lived, restarted with
// backoff after a crash (a call meanwhile is an error result at once, never a hang), each call
// with a timeout that progress notifications reset, cancelled when the turn's Stop fires, and
// its result capped with a marker before it reaches the model.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ErrorCode, McpError, type CallToolResult, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitAnswer, ElicitRequest } from './elicitation';
import { errorOutcome, type ToolOutcome } from '@/lib/tools/tool-types';
import { isHttpServer, type McpHttpConfig, type McpServerConfig } from '@/lib/config/mcp-config';
import type { McpAuth } from './mcp-auth';
import { NeedsSignIn } from './mcp-oauth-provider';
import { screenServerTools } from './mcp-tool-screen';
import { ProcessGroupStdioTransport } from './stdio-transport';
import { statusOnlyContent } from './status-only';

export type McpServerState = 'stopped' | 'starting' | 'ready' | 'failed' | 'needs_sign_in';
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
  /** Sign-ins of remote servers (OAuth); without it a server that answers 401 just fails. */
  auth?: McpAuth | null;
  /** Asks the user what a server asks mid-call (elicitation); without it, every question is declined. */
  elicit?: (request: ElicitRequest) => Promise<ElicitAnswer>;
  /** A call ended: its open questions are over. */
  callEnded?: (server: string, sessionId: string) => void;
  onChange?: () => void;
}

const DEFAULT_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 60_000] as const;
/** A connection that stayed up this long starts its backoff from the beginning again. */
const HEALTHY_AFTER_MS = 30_000;
export const MCP_RESULT_CAP_CHARS = 100_000;
/** setTimeout's longest wait. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why a server needs a sign-in, when that is what an error means; null otherwise. */
export function signInReason(error: unknown): string | null {
  if (error instanceof NeedsSignIn) return error.reason;
  if (error instanceof UnauthorizedError) return 'the server asks for a sign-in';
  // By shape: the SDK's error classes may come from its CommonJS and its ESM build at once.
  if ((error instanceof StreamableHTTPError || (error instanceof Error && error.message.startsWith('Streamable HTTP error'))) && (error as { code?: unknown }).code === 401) {
    return 'the server asks for a sign-in (it answered 401)';
  }
  if (error instanceof Error && error.name === 'NeedsSignIn') return error.message;
  return null;
}

/** When to refresh a token that expires at `expiresAt`: ahead of it by a fifth of what is left, 5–60 s. */
export function refreshDelay(expiresAt: number, now: number): number {
  const left = expiresAt - now;
  return Math.max(0, Math.min(MAX_TIMER_MS, left - Math.max(5_000, Math.min(60_000, left / 5))));
}

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
  /** What screening its list left out, and why (mcp-tool-screen.ts): shown in Settings. */
  toolNotes: string[] = [];
  restarts = 0;
  nextRetryAt: number | null = null;
  /** Whether the last connect ran on stored sign-in tokens. */
  signedIn = false;

  private client: Client | null = null;
  private transport: Transport | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private connectedAt = 0;
  /** The transport's last complaint (a stdio server's exit code and stderr). */
  private transportError: string | null = null;
  /** Why the server wants a sign-in, when that is what the transport's last complaint meant. */
  private transportSignIn: string | null = null;
  private attempt = 0;
  private stopped = true;
  private refreshTimer: NodeJS.Timeout | null = null;
  /** Sessions whose calls are running now, latest last: a question mid-call goes to the latest. */
  private readonly callingSessions: string[] = [];
  private readonly options: Required<Omit<McpConnectionOptions, 'onChange' | 'auth' | 'elicit' | 'callEnded'>> & Pick<McpConnectionOptions, 'onChange' | 'auth' | 'elicit' | 'callEnded'>;

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
      auth: options.auth,
      elicit: options.elicit,
      callEnded: options.callEnded,
      onChange: options.onChange,
    };
  }

  /** The connected client (resources, prompts), or null when the server is not ready. */
  get liveClient(): Client | null {
    return this.state === 'ready' ? this.client : null;
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
    this.transportSignIn = null;
    this.changed();
    let transport: Transport;
    try {
      transport = await this.createTransport();
    } catch (error) {
      this.fail(`could not start: ${message(error)}`);
      return;
    }
    const client = new Client({ name: 'agentcsd', version: '0.1.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const sessionId = this.callingSessions.at(-1);
      if (!sessionId || !this.options.elicit) return { action: 'decline' };
      const params = request.params as { mode?: 'form' | 'url'; message: string; requestedSchema?: ElicitRequest['requestedSchema']; url?: string };
      return this.options.elicit({ server: this.name, sessionId, mode: params.mode ?? 'form', message: params.message, requestedSchema: params.requestedSchema, url: params.url });
    });
    this.transport = transport;
    this.client = client;
    client.onclose = () => this.lost(client);
    client.onerror = (error) => {
      if (this.client !== client) return;
      this.transportError = message(error);
      this.transportSignIn = signInReason(error) ?? this.transportSignIn;
    };
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
      const listed = await client.listTools(undefined, { timeout: this.options.connectTimeoutMs });
      if (this.client !== client) return; // stopped or restarted meanwhile
      const screened = screenServerTools(listed.tools);
      this.tools = screened.tools;
      this.toolNotes = screened.notes;
      this.state = 'ready';
      this.lastError = null;
      this.connectedAt = Date.now();
      this.changed();
      void this.scheduleRefresh();
    } catch (error) {
      if (this.client !== client) return;
      const reason = signInReason(error);
      if (reason) {
        this.client = null;
        this.transport = null;
        await client.close().catch(() => undefined);
        await this.needsSignIn(reason);
        return;
      }
      const stderr = transport instanceof ProcessGroupStdioTransport ? transport.stderr() : '';
      this.fail(`could not start: ${message(error)}${stderr ? ` — stderr: ${stderr.slice(-500)}` : ''}`);
      this.client = null;
      this.transport = null;
      await client.close().catch(() => undefined);
    }
  }

  private async createTransport(): Promise<Transport> {
    const config = this.config;
    if (isHttpServer(config)) {
      const auth = this.options.auth;
      // Signed in: the SDK adds the bearer token and refreshes it on a 401. Not signed in: a 401
      // means "needs sign-in", and nothing is registered anywhere until the user presses Sign in.
      this.signedIn = Boolean(auth && (await auth.hasTokens(this.name)));
      if (auth && this.signedIn) {
        return new StreamableHTTPClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
          authProvider: await auth.backgroundProvider(this.name, config),
          fetch: auth.fetchFor(config),
        });
      }
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    }
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
    if (this.transportSignIn) return void this.needsSignIn(this.transportSignIn);
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

  /** Stops here until the user signs in: no retries (they could only fail the same way). */
  private async needsSignIn(reason: string): Promise<void> {
    this.clearRetry();
    this.clearRefresh();
    this.state = 'needs_sign_in';
    this.lastError = reason;
    this.connectedAt = 0;
    this.changed();
    await this.options.auth?.markNeedsSignIn(this.name, reason).catch(() => undefined);
  }

  /** Refreshes the access token ahead of its expiry (one process of a cluster does it). */
  private async scheduleRefresh(): Promise<void> {
    const auth = this.options.auth;
    if (!auth || !isHttpServer(this.config) || this.stopped) return;
    const config: McpHttpConfig = this.config;
    const expiresAt = await auth.expiresAt(this.name).catch(() => null);
    this.clearRefresh();
    if (!expiresAt || this.state !== 'ready') return;
    const delay = refreshDelay(expiresAt.getTime(), Date.now());
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void (async () => {
        const outcome = await auth.refresh(this.name, config, expiresAt.getTime() - Date.now() + 1_000);
        if (this.state !== 'ready') return;
        if (outcome === 'needs_sign_in') {
          const reason = (await auth.needsSignInReason(this.name)) ?? 'the refresh failed; sign in again';
          await this.disconnect();
          await this.needsSignIn(reason);
        } else if (outcome === 'claimed_elsewhere') {
          this.refreshTimer = setTimeout(() => void this.scheduleRefresh(), 2_000);
          this.refreshTimer.unref();
        } else void this.scheduleRefresh();
      })();
    }, delay);
    this.refreshTimer.unref();
  }

  private clearRefresh(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.nextRetryAt = null;
  }

  private async disconnect(): Promise<void> {
    this.clearRetry();
    this.clearRefresh();
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
    context: { signal: AbortSignal; sessionId?: string; onProgress?: (progress: { progress: number; total?: number; message?: string }) => void },
  ): Promise<ToolOutcome> {
    const client = this.client;
    if (this.state === 'needs_sign_in') return errorOutcome(`MCP server "${this.name}" needs a sign-in (Settings › MCP servers): ${this.lastError ?? ''}`);
    if (this.state !== 'ready' || !client) {
      const retry = this.nextRetryAt ? ` (retrying in ${Math.max(1, Math.round((this.nextRetryAt - Date.now()) / 1000))} s)` : '';
      return errorOutcome(`MCP server "${this.name}" is not running${retry}${this.lastError ? `: ${this.lastError}` : ''}`);
    }
    if (context.sessionId) this.callingSessions.push(context.sessionId);
    try {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: context.signal,
        timeout: this.options.callTimeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.options.callMaxMs,
        // Asking for progress is what makes the server send it (and keeps a long call alive).
        onprogress: (progress) => context.onProgress?.(progress),
      })) as CallToolResult;
      // A status the tool declared (issue 44 §3): the model reads that value alone.
      const status = result.isError ? null : statusOnlyContent(this.tools.find((info) => info.name === tool)?.outputSchema, result.structuredContent);
      if (status !== null) return { isError: false, content: status, statusOnly: true };
      const { text, dropped } = capResult(resultText(result), this.options.resultCapChars);
      return { isError: result.isError === true, content: text, ...(dropped > 0 && { droppedBytes: dropped }) };
    } catch (error) {
      if (context.signal.aborted) return errorOutcome(`Cancelled: the call to ${this.name} was stopped`, { cancelled: true });
      const reason = signInReason(error);
      if (reason) {
        if (this.client === client) {
          await this.disconnect();
          await this.needsSignIn(reason);
        }
        return errorOutcome(`MCP server "${this.name}" needs a sign-in (Settings › MCP servers): ${reason}`);
      }
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return errorOutcome(`MCP server "${this.name}" did not answer ${tool} in time (${message(error)})`, { timedOut: true });
      }
      return errorOutcome(`MCP server "${this.name}" failed on ${tool}: ${message(error)}`);
    } finally {
      if (context.sessionId) {
        this.callingSessions.splice(this.callingSessions.lastIndexOf(context.sessionId), 1);
        if (!this.callingSessions.includes(context.sessionId)) this.options.callEnded?.(this.name, context.sessionId);
      }
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
