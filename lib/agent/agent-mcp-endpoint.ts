// The app's own MCP server for the Claude Code CLI backend (ARCHITECTURE §10): the CLI runs its
// own tool loop, so our tools reach it as MCP tools over loopback Streamable HTTP, and every call
// still goes through the session's toolbox — committed, decided on the server, run once. Each
// CLI run gets a random token (in its environment, never in argv) bound to its turn; a request
// without a live token is refused. Approvals come through the CLI's --permission-prompt-tool:
// our `approve` tool answers {"behavior":"allow","updatedInput":…} or {"behavior":"deny","message":…}.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkRequest, isLoopbackAddress, type GuardOptions } from '@/lib/security/request-guard';
import { refuse } from '@/lib/security/http-entry';
import { hashArgs, type AgentTurnRecord, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { capForModel, type SessionToolbox, type StopKind } from './session-toolbox';
import { resultForModel } from './untrusted-turn';

export const MCP_SERVER_NAME = 'agentcsd';
export const MCP_PATH = '/mcp/agentcsd';
export const PERMISSION_TOOL = 'approve';
/** How the CLI names our tools. */
export const cliToolName = (name: string) => `mcp__${MCP_SERVER_NAME}__${name}`;
/** The CLI cuts a silent MCP call after 300 s: a waiting card sends progress more often. */
const KEEPALIVE_MS = 20_000;

/** The MCP SDK's server half, loaded with the CLI's first call rather than at start (issue 43 §4; the loader keeps it). */
function loadServerSdk() {
  return Promise.all([import('@modelcontextprotocol/sdk/server/index.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@modelcontextprotocol/sdk/types.js')]);
}

/** One request on a stateless Streamable HTTP transport: the server and transport close with the response. */
export async function serveStateless(
  server: { connect(transport: Transport): Promise<void>; close(): Promise<void> },
  transport: Transport & { handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> },
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response);
}

export interface McpBinding {
  sessionId: string;
  toolbox: SessionToolbox;
  turn: Omit<AgentTurnRecord, 'status' | 'sessionId'>;
  signal: AbortSignal;
  stopKind: () => StopKind;
  /** The turn's next step number (a turn started again after a restart keeps its old steps). */
  firstStep?: number;
}

interface LiveBinding extends McpBinding {
  tokenHash: Buffer;
  step: number;
  /** Calls the person approved through `approve`, waiting for the CLI to call them. */
  approved: Map<string, string>;
}

const approveInputSchema = {
  type: 'object' as const,
  properties: { tool_name: { type: 'string' }, input: { type: 'object' }, tool_use_id: { type: 'string' } },
  required: ['tool_name', 'input'],
};

const digest = (token: string) => createHash('sha256').update(token).digest();

function bearerToken(request: IncomingMessage): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(header) : null;
  return match?.[1] ?? null;
}

type TextResult = { content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[]; isError?: boolean };
const text = (value: string, isError = false): TextResult => ({ content: [{ type: 'text', text: value }], ...(isError && { isError: true }) });

export class AgentMcpEndpoint {
  private readonly bindings = new Map<string, LiveBinding>();

  constructor(readonly url: string) {}

  /** A token for one CLI run of a turn; `release` when the run ends. */
  bind(binding: McpBinding): { token: string; release: () => void; nextStep: () => number } {
    const token = randomBytes(32).toString('base64url');
    const tokenHash = digest(token);
    const key = tokenHash.toString('hex');
    const live: LiveBinding = { ...binding, tokenHash, step: binding.firstStep ?? 0, approved: new Map() };
    this.bindings.set(key, live);
    return { token, release: () => this.bindings.delete(key), nextStep: () => live.step };
  }

  get activeBindings(): number {
    return this.bindings.size;
  }

  private find(token: string | null): LiveBinding | null {
    if (!token) return null;
    const hash = digest(token);
    const binding = this.bindings.get(hash.toString('hex'));
    return binding && timingSafeEqual(binding.tokenHash, hash) ? binding : null;
  }

  /** Serves one HTTP request on MCP_PATH (stateless: a server and transport per request). */
  /**
   * The door server.ts opens for the CLI: loopback peers only, never a browser (a browser always
   * sends Origin), and a Host that names us (DNS rebinding gets 421); then handle().
   */
  handleGuarded(request: IncomingMessage, response: ServerResponse, guard: GuardOptions): void {
    const peer = (request.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!isLoopbackAddress(peer) || request.headers.origin !== undefined) {
      refuse(response, 403, 'forbidden', 'The tool server answers the Claude Code CLI on this machine only');
      return;
    }
    const verdict = checkRequest({ method: 'GET', host: request.headers.host, origin: undefined }, guard);
    if (!verdict.ok && verdict.status === 421) {
      refuse(response, verdict.status, verdict.code, verdict.message);
      return;
    }
    void this.handle(request, response).catch((error: unknown) => {
      console.error('[tools] MCP request failed', error);
      if (!response.headersSent) refuse(response, 500, 'internal', 'The tool server failed');
    });
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const binding = this.find(bearerToken(request));
    if (!binding) {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'unauthorized', message: 'No live tool session for this token' } }));
      return;
    }
    const [{ Server }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await loadServerSdk();
    const server = new Server({ name: MCP_SERVER_NAME, version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        ...binding.toolbox.definitions().map((definition) => ({ name: definition.name, description: definition.description, inputSchema: definition.inputSchema })),
        { name: PERMISSION_TOOL, description: 'Used by the app to ask the user for permission. Do not call it yourself.', inputSchema: approveInputSchema },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
      const progressToken = call.params._meta?.progressToken;
      const keepAlive =
        progressToken === undefined
          ? undefined
          : setInterval(() => {
              void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 0, message: 'waiting for the user' } }).catch(() => undefined);
            }, KEEPALIVE_MS);
      try {
        const args = (call.params.arguments ?? {}) as Record<string, unknown>;
        if (call.params.name === PERMISSION_TOOL) return await this.approve(binding, args);
        return await this.callTool(binding, call.params.name, args);
      } finally {
        if (keepAlive) clearInterval(keepAlive);
      }
    });
    await serveStateless(server, new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }), request, response);
  }

  private propose(binding: LiveBinding, providerCallId: string, name: string, input: Record<string, unknown>): Promise<ToolCallRecord[]> {
    const step = binding.step++;
    return binding.toolbox.propose({ turn: binding.turn, step, assistantText: '', calls: [{ type: 'tool-call', id: providerCallId, name, input }] });
  }

  /** The CLI's permission prompt: a card (unless policy or a rule decides), answered in the CLI's shape. */
  private async approve(binding: LiveBinding, args: Record<string, unknown>): Promise<TextResult> {
    const cliName = typeof args.tool_name === 'string' ? args.tool_name : '';
    const prefix = cliToolName('');
    const name = cliName.startsWith(prefix) ? cliName.slice(prefix.length) : cliName;
    const input = args.input && typeof args.input === 'object' && !Array.isArray(args.input) ? (args.input as Record<string, unknown>) : {};
    const deny = (message: string) => text(JSON.stringify({ behavior: 'deny', message }));
    if (!cliName.startsWith(prefix) || name === PERMISSION_TOOL) return deny(`Only the app's own tools can be used here (asked for ${cliName || 'nothing'})`);
    const providerCallId = typeof args.tool_use_id === 'string' && args.tool_use_id ? args.tool_use_id : `cli_${randomBytes(6).toString('hex')}`;
    const [proposed] = await this.propose(binding, providerCallId, name, input);
    if (!proposed) return deny('The call could not be recorded');
    const decided = await binding.toolbox.awaitDecision(proposed, binding.signal, binding.stopKind);
    if (decided.status !== 'approved') return deny(decided.result ?? `Not approved (${decided.status})`);
    const finalInput = decided.args ?? input;
    binding.approved.set(`${name}:${hashArgs(finalInput)}`, decided.id);
    return text(JSON.stringify({ behavior: 'allow', updatedInput: finalInput }));
  }

  /** The call itself: the approved row runs (once); a call that skipped the prompt is proposed now. */
  private async callTool(binding: LiveBinding, name: string, args: Record<string, unknown>): Promise<TextResult> {
    const key = `${name}:${hashArgs(args)}`;
    const approvedId = binding.approved.get(key);
    binding.approved.delete(key);
    let record: ToolCallRecord | undefined;
    if (approvedId) record = (await binding.toolbox.find(approvedId)) ?? undefined;
    record ??= (await this.propose(binding, `cli_${randomBytes(6).toString('hex')}`, name, args))[0];
    if (!record) return text('The call could not be recorded', true);
    const settled = await binding.toolbox.settle(record, binding.signal, binding.stopKind);
    const result = text(resultForModel(capForModel(settled.result ?? `(${settled.status})`), settled.resultSource), settled.isError);
    // What view_image showed goes back as MCP image content: the CLI hands it to the model as an image block.
    const images = binding.toolbox.imagesOf(settled.id) ?? [];
    return { ...result, content: [...result.content, ...images.map((image) => ({ type: 'image' as const, data: image.data, mimeType: image.mediaType }))] };
  }
}
