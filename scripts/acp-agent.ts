// `npm run acp` (issue 46 §4): an Agent Client Protocol agent on stdio for editors — Zed, JetBrains,
// Neovim — that talks to the running app with a key of Settings › Access. Each ACP session opens a
// session of a persona (AGENTCSD_PERSONA, else the key's first); a prompt becomes a message; the
// reply streams as message chunks, the Internal Dialog's private thoughts as thought chunks, its tool
// calls as tool-call updates — and a card becomes an ACP permission request, approved or denied from
// the editor. Cancel stops the reply. Everything else the mind does (its Subconscious, its memory)
// goes on in the app as for any session.
//
//   AGENTCSD_URL=http://127.0.0.1:3000 AGENTCSD_KEY=acsd_… npm run acp
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext } from '@agentclientprotocol/sdk';

const base = (process.env.AGENTCSD_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const key = process.env.AGENTCSD_KEY ?? '';
if (!key) {
  process.stderr.write('Set AGENTCSD_KEY to a key of Settings › Access (acsd_…).\n');
  process.exit(2);
}

interface ToolCallEvent {
  id: string;
  name: string;
  status: string;
  args: Record<string, unknown> | null;
  result: string | null;
}
type DoorEvent = { type: 'start' } | { type: 'reply'; text: string } | { type: 'thought'; text: string } | { type: 'tool_call'; call: ToolCallEvent } | { type: 'end'; finish: string } | { type: 'error'; message: string };

async function call<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw RequestError.internalError(undefined, `${path}: ${response.status} ${(await response.text()).slice(0, 500)}`);
  return (await response.json()) as T;
}

/** The key's persona to talk to: the one named, else its first. */
async function persona(): Promise<string> {
  if (process.env.AGENTCSD_PERSONA) return process.env.AGENTCSD_PERSONA;
  const response = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw RequestError.authRequired(undefined, `The app refused the key (${response.status}): check AGENTCSD_KEY and AGENTCSD_URL.`);
  const first = ((await response.json()) as { data: { id: string }[] }).data[0]?.id;
  if (!first) throw RequestError.invalidRequest(undefined, 'This key may use no persona.');
  return first.replace(/^persona\//, '');
}

/** The app's turn events, from its server-sent events. */
async function* events(sessionId: string, text: string, signal: AbortSignal): AsyncGenerator<DoorEvent> {
  const response = await fetch(`${base}/v1/agentcsd/sessions/${sessionId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text }), signal });
  if (!response.ok || !response.body) throw RequestError.internalError(undefined, `The app refused the message: ${response.status} ${(await response.text()).slice(0, 500)}`);
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 2);
      if (line.startsWith('data: ')) yield JSON.parse(line.slice(6)) as DoorEvent;
    }
  }
}

const acpStatus = (status: string) => (status === 'running' ? 'in_progress' : status === 'succeeded' ? 'completed' : ['failed', 'denied', 'expired', 'cancelled', 'interrupted'].includes(status) ? 'failed' : 'pending');

const cancelled = new Set<string>();
const running = new Map<string, AbortController>();

/** One prompt turn: the message sent, its events forwarded as session updates, cards as permission requests. */
async function prompt(client: AgentContext, sessionId: string, text: string): Promise<'end_turn' | 'cancelled'> {
  const controller = new AbortController();
  running.set(sessionId, controller);
  cancelled.delete(sessionId);
  const seen = new Set<string>();
  const asked = new Set<string>();
  const decisions: Promise<unknown>[] = [];
  const update = (value: Record<string, unknown>) => client.notify(methods.client.session.update, { sessionId, update: value as never });
  try {
    for await (const event of events(sessionId, text, controller.signal)) {
      if (event.type === 'reply') await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
      else if (event.type === 'thought') await update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } });
      else if (event.type === 'tool_call') {
        const { call: tool } = event;
        const status = acpStatus(tool.status);
        if (!seen.has(tool.id)) {
          seen.add(tool.id);
          await update({ sessionUpdate: 'tool_call', toolCallId: tool.id, title: tool.name, kind: 'other', status, rawInput: tool.args ?? {} });
        } else {
          await update({ sessionUpdate: 'tool_call_update', toolCallId: tool.id, status, ...(tool.result && ['completed', 'failed'].includes(status) && { content: [{ type: 'content', content: { type: 'text', text: tool.result.slice(0, 20_000) } }] }) });
        }
        if (tool.status === 'awaiting_approval' && !asked.has(tool.id)) {
          asked.add(tool.id);
          decisions.push(
            client
              .request(methods.client.session.requestPermission, {
                sessionId,
                toolCall: { toolCallId: tool.id, title: tool.name, status: 'pending', rawInput: tool.args ?? {} },
                options: [
                  { optionId: 'approve', name: 'Approve', kind: 'allow_once' },
                  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
                ],
              })
              .then((answer) => (answer.outcome.outcome === 'selected' ? call(`/v1/agentcsd/tool-calls/${tool.id}/decision`, { decision: answer.outcome.optionId === 'approve' ? 'approve' : 'deny' }) : undefined))
              .catch((error: unknown) => process.stderr.write(`[acp] a card was not decided: ${(error as Error).message}\n`)),
          );
        }
      } else if (event.type === 'error') throw RequestError.internalError(undefined, event.message);
    }
  } catch (error) {
    if (!cancelled.has(sessionId)) throw error;
  } finally {
    running.delete(sessionId);
    // A cancelled turn does not wait for the editor's answers (the client cancels its own requests).
    if (!cancelled.has(sessionId)) await Promise.all(decisions);
  }
  return cancelled.has(sessionId) ? 'cancelled' : 'end_turn';
}

const app = agent({ name: 'agentcsd' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
    agentInfo: { name: 'agentcsd', title: 'AgentCSD', version: '1.0.0' },
    authMethods: [],
  }))
  .onRequest(methods.agent.session.new, async () => ({ sessionId: (await call<{ session_id: string }>('/v1/agentcsd/sessions', { persona: await persona() })).session_id }))
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt.map((block) => (block.type === 'text' ? block.text : block.type === 'resource_link' ? block.uri : '')).filter(Boolean).join('\n\n');
    if (!text.trim()) throw RequestError.invalidParams(undefined, 'The prompt holds no text.');
    return { stopReason: await prompt(client, params.sessionId, text) };
  })
  .onNotification(methods.agent.session.cancel, async ({ params }) => {
    cancelled.add(params.sessionId);
    await call(`/v1/agentcsd/sessions/${params.sessionId}/stop`, {}).catch(() => undefined);
    running.get(params.sessionId)?.abort();
  });

const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
await connection.closed;
