// Every MCP server the user configured, one connection each, and their tools as registry tools
// (`server__tool`), in a fixed order so the definitions stay inside the cached prompt prefix.
// Whether a call needs a person is decided here, on the server: the user's per-tool choice, else
// the server's own annotation (only a tool it marks read-only and not destructive runs without a
// card), never anything a model or a tool's output says.
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { estimateTokens } from '@/lib/mind/token-budget';
import type { Tool, ToolInputSchema } from '@/lib/tools/tool-types';
import { emptyMcpSettings, isHttpServer, mcpToolName, sameServerConfig, type McpHttpConfig, type McpSettings } from '@/lib/config/mcp-config';
import { deleteMcpAuthExcept } from '@/lib/store/mcp-tokens-repository';
import type { McpAuth } from './mcp-auth';
import type { McpConnection, McpConnectionOptions, McpServerState, McpToolInfo } from './mcp-connection';
import { uniqueModelNames } from './mcp-tool-screen';

export class McpServerError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'McpServerError';
  }
}

export interface McpToolStatus {
  /** The server's own name for it. */
  name: string;
  /** What models see: `server__tool`. */
  model_name: string;
  description: string;
  enabled: boolean;
  /** The user's choice, or null when the server's annotation decides. */
  auto_approve: boolean | null;
  approval: 'never' | 'required';
  read_only: boolean;
  /** Whether the user approved this description; `changed` after approval is a possible "rug pull". */
  description_state: DescriptionState;
  /** When changed: the description the user approved. */
  approved_description: string | null;
}

export type DescriptionState = 'unreviewed' | 'approved' | 'changed';

/** A tool's description is untrusted text the model reads every turn: this much of it, at most. */
export const MAX_TOOL_DESCRIPTION_CHARS = 1_024;

export function capDescription(text: string): string {
  return text.length <= MAX_TOOL_DESCRIPTION_CHARS ? text : `${text.slice(0, MAX_TOOL_DESCRIPTION_CHARS - 1)}…`;
}

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  enabled: boolean;
  state: McpServerState;
  tool_count: number;
  /** Tokens the enabled tools' definitions add to every Internal Dialog prompt (local estimate). */
  definition_tokens: number;
  last_error: string | null;
  restarts: number;
  next_retry_at: string | null;
  pid: number | null;
  /** Remote servers: whether a sign-in is stored (null for local servers). */
  signed_in: boolean | null;
  /** Tools left out or renamed, and why (a name listed twice, an oversized schema, a clash with another server's). */
  notes: string[];
  tools: McpToolStatus[];
}

const argsSchema = z.record(z.string(), z.unknown());

function readOnly(info: McpToolInfo): boolean {
  return info.annotations?.readOnlyHint === true && info.annotations?.destructiveHint !== true;
}

function inputSchemaOf(info: McpToolInfo): ToolInputSchema {
  const { $schema: _ignored, ...schema } = (info.inputSchema ?? {}) as Record<string, unknown>;
  return { ...schema, type: 'object' } as ToolInputSchema;
}

export class McpPool {
  private settings: McpSettings = emptyMcpSettings;
  private readonly connections = new Map<string, McpConnection>();
  private readonly listeners = new Set<() => void>();
  private cachedTools: Tool[] | null = null;
  private cachedNames: ReturnType<typeof uniqueModelNames> | null = null;
  private readonly authListeners = new Set<(server: string) => void>();

  constructor(private readonly options: Omit<McpConnectionOptions, 'onChange'> = {}) {}

  /** Sign-ins of remote servers, when this pool has them (the app's does). */
  get auth(): McpAuth | null {
    return this.options.auth ?? null;
  }

  /** Called on every state change of any server (Settings refreshes, tools are rebuilt). */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.cachedTools = null;
    this.cachedNames = null;
    for (const listener of this.listeners) listener();
  }

  /**
   * Applies a configuration: servers removed, switched off or changed stop; new and changed ones
   * start in the background (a server that fails says why in its status and retries).
   */
  async configure(settings: McpSettings): Promise<void> {
    this.settings = settings;
    const wanted = new Map(Object.entries(settings.mcpServers).filter(([name]) => !settings.disabled.includes(name)));
    const stopping: Promise<void>[] = [];
    for (const [name, connection] of this.connections) {
      const config = wanted.get(name);
      if (config && sameServerConfig(config, connection.config)) continue;
      this.connections.delete(name);
      stopping.push(connection.stop());
    }
    await Promise.all(stopping);
    // A server removed takes its sign-in with it (a server added again under its name signs in again).
    if (this.options.auth) await deleteMcpAuthExcept(Object.keys(settings.mcpServers)).catch(() => undefined);
    // The MCP client (and its SDK) is loaded when a server is configured, not with the app.
    const { McpConnection } = wanted.size > 0 ? await import('./mcp-connection') : { McpConnection: null };
    for (const [name, config] of wanted) {
      if (this.connections.has(name) || !McpConnection) continue;
      const connection = new McpConnection(name, config, { ...this.options, onChange: () => this.changed() });
      this.connections.set(name, connection);
      void connection.start();
    }
    this.changed();
  }

  /** Waits until every enabled server is ready or has failed once (start-up, tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.start().catch(() => undefined)));
  }

  /** Connects again now, whatever the backoff says, and reports what it found. */
  async test(name: string): Promise<{ ok: boolean; tools: McpToolStatus[]; error: string | null }> {
    const connection = this.connections.get(name);
    if (!connection) return { ok: false, tools: [], error: this.settings.disabled.includes(name) ? `${name} is switched off` : `${name} is not configured` };
    await connection.restart();
    const status = this.statusOf(name, connection);
    return { ok: connection.state === 'ready', tools: status.tools, error: connection.state === 'ready' ? null : connection.lastError };
  }

  /** The remote server's configuration, or why there is none. */
  httpConfig(name: string): McpHttpConfig {
    const config = this.settings.mcpServers[name];
    if (!config) throw new McpServerError('not_found', `No MCP server named ${JSON.stringify(name)} is configured`);
    if (!isHttpServer(config)) throw new McpServerError('conflict', `"${name}" is a local (stdio) server: only remote servers sign in`);
    return config;
  }

  private requireAuth(): McpAuth {
    if (!this.options.auth) throw new McpServerError('conflict', 'sign-in is not available in this process');
    return this.options.auth;
  }

  /** Starts a sign-in: the authorization URL to open, or null when stored credentials were enough. */
  async signIn(name: string, redirectUrl: string): Promise<string | null> {
    const url = await this.requireAuth().signIn(name, this.httpConfig(name), redirectUrl);
    if (url === null) {
      await this.reconnect(name);
      this.authChanged(name);
    }
    return url;
  }

  /** The callback: signs the server in and connects it; returns its name. */
  async finishSignIn(input: { state: string; code?: string; error?: string; errorDescription?: string }): Promise<string> {
    const name = await this.requireAuth().finishSignIn(input, (server) => {
      const config = this.settings.mcpServers[server];
      return config && isHttpServer(config) ? config : null;
    });
    await this.reconnect(name);
    this.authChanged(name);
    return name;
  }

  async signOut(name: string): Promise<{ revoked: boolean; error: string | null }> {
    const result = await this.requireAuth().signOut(name, this.httpConfig(name));
    await this.reconnect(name);
    this.authChanged(name);
    return result;
  }

  /** A ready server's client (resources, prompts), or why there is none. */
  client(name: string): Client {
    if (!this.settings.mcpServers[name]) throw new McpServerError('not_found', `No MCP server named ${JSON.stringify(name)} is configured`);
    const client = this.connections.get(name)?.liveClient;
    if (!client) throw new McpServerError('conflict', `"${name}" is not connected (${this.connections.get(name)?.state ?? 'off'})`);
    return client;
  }

  /** Called when a sign-in finishes or ends here (the cluster tells the other processes). */
  onAuthChanged(listener: (server: string) => void): () => void {
    this.authListeners.add(listener);
    return () => this.authListeners.delete(listener);
  }

  private authChanged(name: string): void {
    for (const listener of this.authListeners) listener(name);
  }

  /** A server's sign-in changed (here or in another process): connect it again now. */
  async reconnect(name: string): Promise<void> {
    const connection = this.connections.get(name);
    if (connection) await connection.restart();
  }

  async stop(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.stop()));
    this.changed();
  }

  /** The tools of every ready server that the user left on, sorted by server then tool. */
  tools(): Tool[] {
    if (this.cachedTools) return this.cachedTools;
    const tools: Tool[] = [];
    for (const name of [...this.connections.keys()].sort()) {
      const connection = this.connections.get(name)!;
      if (connection.state !== 'ready') continue;
      for (const info of [...connection.tools].sort((a, b) => a.name.localeCompare(b.name))) {
        const prefs = this.settings.tools[name]?.[info.name];
        if (prefs?.enabled === false) continue;
        tools.push(this.toolOf(connection, info));
      }
    }
    this.cachedTools = tools;
    return tools;
  }

  /** Model names unique across every connected server's tools (mcp-tool-screen.ts). */
  private names(): ReturnType<typeof uniqueModelNames> {
    this.cachedNames ??= uniqueModelNames([...this.connections.values()].flatMap((connection) => connection.tools.map((info) => ({ server: connection.name, tool: info.name }))));
    return this.cachedNames;
  }

  private modelName(server: string, tool: string): string {
    return this.names().names.get(`${server}\u0000${tool}`) ?? mcpToolName(server, tool);
  }

  private approvalOf(server: string, info: McpToolInfo): 'never' | 'required' {
    const choice = this.settings.tools[server]?.[info.name]?.auto_approve;
    if (choice !== undefined) return choice ? 'never' : 'required';
    return readOnly(info) ? 'never' : 'required';
  }

  private descriptionState(server: string, info: McpToolInfo): DescriptionState {
    const approved = this.settings.tools[server]?.[info.name]?.approved_description;
    if (approved === undefined) return 'unreviewed';
    return approved === capDescription(info.description ?? '') ? 'approved' : 'changed';
  }

  /** The settings with every current tool description of the server approved (Settings › Approve descriptions). */
  withDescriptionsApproved(name: string): McpSettings {
    const connection = this.connections.get(name);
    if (!this.settings.mcpServers[name]) throw new McpServerError('not_found', `There is no MCP server named "${name}"`);
    if (!connection || connection.state !== 'ready') throw new McpServerError('conflict', `"${name}" is not connected: its tools cannot be reviewed yet`);
    const tools = { ...this.settings.tools[name] };
    for (const info of connection.tools) tools[info.name] = { ...tools[info.name], approved_description: capDescription(info.description ?? '') };
    return { ...this.settings, tools: { ...this.settings.tools, [name]: tools } };
  }

  private toolOf(connection: McpConnection, info: McpToolInfo): Tool<Record<string, unknown>> {
    const server = connection.name;
    const description = `${capDescription(info.description ?? info.title ?? info.name)} (from the MCP server "${server}")`;
    return {
      definition: { name: this.modelName(server, info.name), description, inputSchema: inputSchemaOf(info) },
      approval: this.approvalOf(server, info),
      source: { mcpServer: server },
      readOnly: readOnly(info),
      // A server's own read-only hint is all we know of what a tool does: anything else may send data out.
      traits: readOnly(info) ? ['read_only'] : ['sends_out'],
      descriptionReviewed: this.descriptionState(server, info) === 'approved',
      args: argsSchema,
      describeCall: (args) => {
        const json = JSON.stringify(args);
        return `${server} · ${info.name} ${json.length > 300 ? `${json.slice(0, 300)}…` : json}`;
      },
      run: (args, context) =>
        connection.call(info.name, args, {
          signal: context.signal,
          sessionId: context.sessionId,
          onProgress: (progress) =>
            context.onOutput?.({
              stream: 'stdout',
              text: `progress ${progress.progress}${progress.total !== undefined ? `/${progress.total}` : ''}${progress.message ? ` ${progress.message}` : ''}\n`,
            }),
        }),
    };
  }

  status(): McpServerStatus[] {
    const names = Object.keys(this.settings.mcpServers).sort();
    return names.map((name) => this.statusOf(name, this.connections.get(name)));
  }

  private statusOf(name: string, connection: McpConnection | undefined): McpServerStatus {
    const config = this.settings.mcpServers[name]!;
    const tools = (connection?.tools ?? []).map((info): McpToolStatus => {
      const prefs = this.settings.tools[name]?.[info.name];
      const descriptionState = this.descriptionState(name, info);
      return {
        name: info.name,
        model_name: this.modelName(name, info.name),
        description: capDescription(info.description ?? ''),
        enabled: prefs?.enabled !== false,
        auto_approve: prefs?.auto_approve ?? null,
        approval: this.approvalOf(name, info),
        read_only: readOnly(info),
        description_state: descriptionState,
        approved_description: descriptionState === 'changed' ? (prefs?.approved_description ?? null) : null,
      };
    });
    const definitionTokens = connection
      ? connection.tools
          .filter((info) => this.settings.tools[name]?.[info.name]?.enabled !== false)
          .reduce((sum, info) => sum + estimateTokens(JSON.stringify({ name: this.modelName(name, info.name), description: info.description ?? '', input_schema: inputSchemaOf(info) })), 0)
      : 0;
    return {
      name,
      transport: isHttpServer(config) ? 'http' : 'stdio',
      enabled: !this.settings.disabled.includes(name),
      state: connection?.state ?? 'stopped',
      tool_count: tools.length,
      definition_tokens: definitionTokens,
      last_error: connection?.lastError ?? null,
      restarts: connection?.restarts ?? 0,
      next_retry_at: connection?.nextRetryAt ? new Date(connection.nextRetryAt).toISOString() : null,
      pid: connection?.pid ?? null,
      signed_in: isHttpServer(config) ? (connection?.signedIn ?? false) : null,
      notes: [...(connection?.toolNotes ?? []), ...(this.names().notes.get(name) ?? [])],
      tools,
    };
  }
}
