// Shared machinery of the fake model servers: a loopback HTTP server, a request log, scripted
// replies chosen by request content, and faults injected on demand. Protocol framing lives in
// the per-provider files.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** Text of the last user message (Anthropic and OpenAI shapes; role:"system" entries skipped). */
  lastUserText: string;
  system: string;
}

export interface FakeReply {
  text: string;
  reasoning?: string;
  /** How the text is cut into deltas; default: about 4 characters each. */
  chunks?: string[];
  stopReason?: string;
  /** Tool calls after the text (stop reason tool_use / tool_calls unless `stopReason` says otherwise). */
  toolCalls?: FakeToolCall[];
  /** OpenAI only: `index` as most servers send it, from 1 (after text, seen in the wild), or left out (gateways). */
  toolCallIndex?: 'from-zero' | 'from-one' | 'missing';
  inputTokens?: number;
  outputTokens?: number;
  /** OpenAI only: a wait before the first delta — the model holding the call (a test stops the caller meanwhile). */
  holdMs?: number;
}

export interface FakeToolCall {
  id?: string;
  name: string;
  /** The arguments as the model sends them; default: JSON of `input`, in small fragments. */
  arguments?: string;
  input?: Record<string, unknown>;
  /** How the arguments are cut into deltas: 'fragments' (a few characters; the default), 'one-char', 'whole'. */
  chunking?: 'fragments' | 'one-char' | 'whole';
}

export function toolCallArguments(call: FakeToolCall): string {
  return call.arguments ?? (call.input ? JSON.stringify(call.input) : '');
}

export function toolCallChunks(call: FakeToolCall): string[] {
  const text = toolCallArguments(call);
  if (call.chunking === 'whole') return [text];
  return splitIntoChunks(text, call.chunking === 'one-char' ? 1 : 5).filter((chunk) => chunk !== '');
}

export type FakeFault =
  | { kind: 'status'; status: number; message?: string; errorType?: string; retryAfter?: string }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'cut'; afterChunks: number }
  | { kind: 'malformed'; afterChunks: number }
  | { kind: 'stream-error'; afterChunks: number; errorType?: string; message?: string };

export type FakeScript = (request: FakeRequest) => FakeReply;

export interface FakeServerOptions {
  script?: FakeScript;
  /** Loopback port to listen on; default: any free port. */
  port?: number;
  /** Delay between deltas, for benchmarks and abort tests. */
  chunkDelayMs?: number;
  /** Extra wait before a reply's first delta: the model's time to first token. */
  firstDeltaDelayMs?: number;
  /** Called as each content delta is written (benchmarks stamp it to time the path to a client). */
  onDelta?: (text: string) => void;
  /** Keep only the newest requests in `requests` (long runs); default: all of them. */
  requestLogLimit?: number;
}

export interface StreamWriter {
  (response: http.ServerResponse, reply: FakeReply, context: { request: FakeRequest; fault?: FakeFault; chunkDelayMs: number; closed: () => boolean }): Promise<void>;
}

export const defaultScript: FakeScript = (request) => ({ text: `Echo: ${request.lastUserText}` });

export function splitIntoChunks(text: string, size = 4): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks.length ? chunks : [''];
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FakeServerCore {
  readonly requests: FakeRequest[] = [];
  private readonly faults: FakeFault[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  script: FakeScript;
  chunkDelayMs: number;
  firstDeltaDelayMs: number;
  readonly onDelta: ((text: string) => void) | undefined;
  private readonly requestLogLimit: number;
  url = '';

  constructor(
    options: FakeServerOptions,
    private readonly routes: (request: FakeRequest, response: http.ServerResponse, core: FakeServerCore) => Promise<boolean>,
  ) {
    this.script = options.script ?? defaultScript;
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
    this.firstDeltaDelayMs = options.firstDeltaDelayMs ?? 0;
    this.onDelta = options.onDelta;
    this.requestLogLimit = options.requestLogLimit ?? Number.POSITIVE_INFINITY;
    this.server = http.createServer((request, response) => void this.handle(request, response));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(port = 0): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Waits as a model would before its next delta: the first-token delay, then the token rate. */
  async pace(sent: number): Promise<void> {
    const wait = (sent === 0 ? this.firstDeltaDelayMs : 0) + this.chunkDelayMs;
    if (wait) await delay(wait);
  }

  /** The next `times` model requests suffer this fault. */
  failNext(fault: FakeFault, times = 1): void {
    for (let index = 0; index < times; index++) this.faults.push(fault);
  }

  takeFault(): FakeFault | undefined {
    return this.faults.shift();
  }

  /**
   * Applies a fault that strikes before the response starts (reset, hang, HTTP status) and
   * returns true when the response is dealt with; stream faults are left to the writer.
   */
  async answerEarlyFault(
    response: http.ServerResponse,
    fault: FakeFault | undefined,
    errorBody: (fault: Extract<FakeFault, { kind: 'status' }>) => unknown,
  ): Promise<boolean> {
    if (fault?.kind === 'reset') {
      response.socket?.destroy();
      return true;
    }
    if (fault?.kind === 'hang') return new Promise<boolean>(() => {});
    if (fault?.kind === 'status') {
      response.writeHead(fault.status, { 'content-type': 'application/json', ...(fault.retryAfter && { 'retry-after': fault.retryAfter }) });
      response.end(JSON.stringify(errorBody(fault)));
      return true;
    }
    return false;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const fakeRequest: FakeRequest = {
      method: request.method ?? 'GET',
      path: new URL(request.url ?? '/', 'http://fake').pathname,
      headers: request.headers,
      body,
      lastUserText: lastUserText(body),
      system: systemOf(body),
    };
    this.requests.push(fakeRequest);
    if (this.requests.length > this.requestLogLimit) this.requests.splice(0, this.requests.length - this.requestLogLimit);
    const handled = await this.routes(fakeRequest, response, this).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: String(error) }));
      return true;
    });
    if (!handled) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `No route ${fakeRequest.path}` } }));
    }
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((block) => (typeof block === 'object' && block && 'text' in block ? String((block as { text: unknown }).text) : '')).join('');
  }
  return '';
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages;
  if (!Array.isArray(messages)) return '';
  const user = [...messages].reverse().find((message) => message.role === 'user');
  if (!user) return '';
  // The Claude Code CLI prepends <system-reminder> blocks to the user's own text: skip them.
  if (Array.isArray(user.content)) {
    const own = user.content.filter(
      (block: { type?: string; text?: string }) => block.type === 'text' && !String(block.text).trimStart().startsWith('<system-reminder>'),
    );
    if (own.length) return contentText(own);
  }
  return contentText(user.content).replace(/^(\s*<system-reminder>[\s\S]*?<\/system-reminder>)+\s*/, '');
}

function systemOf(body: unknown): string {
  const value = body as { system?: unknown; messages?: { role: string; content: unknown }[] } | undefined;
  if (value?.system !== undefined) return contentText(value.system);
  const system = value?.messages?.find((message) => message.role === 'system');
  return system ? contentText(system.content) : '';
}
