// The MCP door (issue 46 §3, ARCHITECTURE §23): `/mcp`, Streamable HTTP (stateless, the SDK's
// current revision), for outside MCP clients — Claude Desktop, Claude Code (`claude mcp add
// --transport http agentcsd http://localhost:3000/mcp --header "Authorization: Bearer acsd_…"`).
// A key of Settings › Access acts as its person on its personas: `send_message` (waits for the
// reply, with progress while the mind works), `recall`, `list_sessions`, `submit_task`,
// `task_status`, and its sessions' transcripts as resources. Apart from the per-run endpoint the
// Claude Code backend uses (`/mcp/agentcsd`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { serveStateless } from '@/lib/agent/agent-mcp-endpoint';
import { recall } from '@/lib/memory/recall';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { keyReachesPersona, personasOfKey } from '@/lib/people/rights';
import { messageTextSchema } from '@/lib/config/message-text';
import { refuse } from '@/lib/security/http-entry';
import { checkRequest, type GuardOptions } from '@/lib/security/request-guard';
import { authenticateApiKey, type ApiKeyRecord } from '@/lib/store/api-keys-repository';
import { readWholeSession } from '@/lib/store/messages-repository';
import { findSession, sessionsOfPerson } from '@/lib/store/sessions-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { findTask, taskJson } from '@/lib/store/tasks-repository';
import { deliver, DoorError, EventTap, keySessionFor, reply } from './door-conversation';
import { sessionTranscriptMarkdown } from './session-export';
import { errorText } from '@/lib/errors/error-text';

export const MCP_DOOR_PATH = '/mcp';
const PROGRESS_MS = 2_000;

const loadSdk = () => Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);

const text = (value: string, structured?: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: value }], ...(structured && { structuredContent: structured }) });
const failure = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });

/** The sessions a key may use: of its personas, with its person in them. */
async function keySessions(key: ApiKeyRecord) {
  const rows = await sessionsOfPerson({ personId: key.personId, personas: personasOfKey(key), limit: 100 });
  return rows.map((row) => ({ id: row.id, name: row.name, persona: row.personaName, status: row.status, last_activity_at: row.lastActivityAt.toISOString() }));
}

/** The MCP specification's error code for a resource that is not there (or not the caller's). */
const RESOURCE_NOT_FOUND = -32002;

export class McpDoor {
  constructor(
    private readonly orchestrator: Orchestrator,
    private readonly baseUrl: string,
  ) {}

  /** Held to the Host rule, and to the app's own Origin when a browser sends one (the spec's rule against DNS rebinding); then the key. */
  handleGuarded(request: IncomingMessage, response: ServerResponse, guard: GuardOptions): void {
    // The doors' one rule (lib/security/request-guard.ts): the Host, an Origin if one is sent; the key is checked below.
    const verdict = checkRequest({ method: request.method ?? 'GET', host: request.headers.host, origin: request.headers.origin, door: true }, guard);
    if (!verdict.ok) return refuse(response, verdict.status, verdict.code, verdict.message);
    void this.handle(request, response).catch((error: unknown) => {
      console.error('[mcp door] request failed', error);
      if (!response.headersSent) refuse(response, 500, 'internal', 'The MCP door failed');
    });
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const key = bearer ? await authenticateApiKey(bearer) : null;
    if (!key) {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="agentcsd"' });
      response.end(JSON.stringify({ error: { code: 'unauthorized', message: 'Send a key of Settings › Access as "Authorization: Bearer acsd_…"' } }));
      return;
    }
    const [{ McpServer, ResourceTemplate }, { StreamableHTTPServerTransport }] = await loadSdk();
    const server = new McpServer({ name: 'agentcsd', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
    this.register(server, ResourceTemplate, key);
    await serveStateless(server, new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }), request, response);
  }

  private register(server: import('@modelcontextprotocol/sdk/server/mcp.js').McpServer, ResourceTemplate: typeof import('@modelcontextprotocol/sdk/server/mcp.js').ResourceTemplate, key: ApiKeyRecord): void {
    const persona = z.string().describe(`The persona to talk to: ${personasOfKey(key).join(', ')}`);
    const usable = (name: string) => keyReachesPersona(key, name);
    const guarded = async <T>(run: () => Promise<T>) => {
      try {
        return await run();
      } catch (error) {
        return failure(errorText(error));
      }
    };

    server.registerTool(
      'send_message',
      {
        description: 'Say something to the agent of a persona and wait for its reply (its own conversation with you; it remembers it). A card it raises on the way is said in the reply, with where a person decides it.',
        inputSchema: { persona, text: messageTextSchema.pipe(z.string().min(1, 'text must not be empty')), session_id: z.string().optional().describe('One of your sessions of that persona (list_sessions); default: your own') },
      },
      async (args, extra) =>
        guarded(async () => {
          if (!usable(args.persona)) return failure(`No persona ${args.persona} for this key`);
          const tap = new EventTap(this.orchestrator);
          let delivery;
          try {
            delivery = await deliver(this.orchestrator, key, args.persona, { door: 'mcp', text: args.text, conversation: null, sessionId: args.session_id });
          } catch (error) {
            tap.stop();
            throw error;
          }
          const progressToken = extra._meta?.progressToken;
          let written = '';
          let step = 0;
          const progress = progressToken === undefined ? undefined : setInterval(() => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message: written ? `${written.length} characters so far` : 'the mind is working' } }).catch(() => undefined), PROGRESS_MS);
          try {
            const answer = await reply(tap, delivery, this.baseUrl, { id: 'mcp', onText: (words) => (written += words) });
            return text(answer.text, { session_id: delivery.sessionId, reply: answer.text });
          } finally {
            if (progress) clearInterval(progress);
          }
        }),
    );

    server.registerTool(
      'recall',
      { description: 'Search what the agent of a persona remembers and what was said in the conversations you may read.', inputSchema: { persona, query: z.string().min(1).max(2_000), k: z.number().int().min(1).max(50).optional() } },
      async (args) =>
        guarded(async () => {
          if (!usable(args.persona)) return failure(`No persona ${args.persona} for this key`);
          const sessionId = await keySessionFor(this.orchestrator, key, args.persona, null);
          const hits = await recall({ personaName: args.persona, query: args.query, k: args.k ?? 8, forSession: sessionId });
          return text(hits.map((hit) => `- [${hit.kind} ${hit.id}] ${hit.content.slice(0, 500)}`).join('\n') || '(nothing found)');
        }),
    );

    server.registerTool('list_sessions', { description: 'Your sessions with the personas of this key.', inputSchema: {} }, async () =>
      guarded(async () => {
        const sessions = await keySessions(key);
        return text(JSON.stringify(sessions, null, 2), { sessions });
      }),
    );

    server.registerTool(
      'submit_task',
      { description: 'Give the agent of a persona a goal to pursue on its own, step by step; task_status follows it.', inputSchema: { persona, goal: z.string().min(1).max(4_000), context: z.string().max(20_000).optional() } },
      async (args) =>
        guarded(async () => {
          if (!usable(args.persona)) return failure(`No persona ${args.persona} for this key`);
          const sessionId = await keySessionFor(this.orchestrator, key, args.persona, null);
          const task = await this.orchestrator.tasks.submit(sessionId, submitTaskSchema.parse({ goal: args.goal, ...(args.context && { context: args.context }) }));
          return text(`Task ${task.id} submitted (${task.status}).`, { task_id: task.id, status: task.status, session_id: sessionId });
        }),
    );

    server.registerTool('task_status', { description: 'Where a task you submitted stands: its status, steps, result or error.', inputSchema: { task_id: z.string().uuid() } }, async (args) =>
      guarded(async () => {
        const task = await findTask(args.task_id);
        const mine = task && (await keySessions(key)).some((session) => session.id === task.sessionId);
        if (!task || !mine) return failure(`No task ${args.task_id} of yours`);
        const json = taskJson(task);
        return text(JSON.stringify({ id: json.id, status: json.status, goal: json.goal, steps: json.steps, result: json.result, error: json.error }, null, 2));
      }),
    );

    server.registerResource(
      'transcript',
      new ResourceTemplate('agentcsd://sessions/{id}/transcript', {
        list: async () => ({ resources: (await keySessions(key)).map((session) => ({ uri: `agentcsd://sessions/${session.id}/transcript`, name: `${session.name} (${session.persona})`, mimeType: 'text/markdown' })) }),
      }),
      { description: 'The conversation of one of your sessions, as Markdown.', mimeType: 'text/markdown' },
      async (uri, variables) => {
        const id = String(variables.id);
        const session = (await keySessions(key)).some((entry) => entry.id === id) ? await findSession({ id }) : null;
        // Not the key's, or none: MCP's "resource not found" (-32002), never an internal error (red-team round 4).
        if (!session) throw Object.assign(new Error(`Resource not found: no session ${id.slice(0, 64)} of yours`), { code: RESOURCE_NOT_FOUND });
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: sessionTranscriptMarkdown(session, await readWholeSession({ sessionId: id })) }] };
      },
    );
  }
}
