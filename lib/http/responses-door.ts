// The Responses API door (issue 78 §1): `POST /v1/responses` in OpenAI's shapes, for the clients that
// speak it (the Agents SDK, `client.responses.create`, the Codex CLI), on the same conversation
// module as the Chat Completions door — the same keys, persona-as-model, people, rights, daily
// limits, lanes and traces (door-conversation.ts). The newest user message of `input` is delivered
// to the key's session of the persona (or the one `previous_response_id` continues, or
// `metadata.session_id` names); the answer is the Internal Dialog's externalised text, whole or as
// the documented stream of events. A response is kept unless `store: false`, for `GET /v1/responses/:id`.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { getOrchestrator, type Orchestrator } from '@/lib/orchestrator/orchestrator';
import type { ApiKeyRecord } from '@/lib/store/api-keys-repository';
import { findDoorResponse, saveDoorResponse } from '@/lib/store/door-responses-repository';
import { messageRefusal } from '@/lib/config/message-text';
import { deliver, DoorError, EventTap, inLane, reply, type Delivery } from './door-conversation';
import { doorHandler, doorKey, personaOf } from './openai-door';
import { readJsonBody } from './route-helpers';

const contentPart = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const content = z.union([z.string(), z.array(contentPart)]);
const inputItem = z
  .object({
    type: z.string().max(100).optional(),
    role: z.enum(['user', 'system', 'developer', 'assistant']).optional(),
    content: content.optional(),
    call_id: z.string().max(200).optional(),
  })
  .passthrough();
export const responseRequestSchema = z
  .object({
    model: z.string().min(1).max(200),
    input: z.union([z.string(), z.array(inputItem).max(2_000)]),
    instructions: z.string().max(200_000).nullish(),
    stream: z.boolean().nullish(),
    store: z.boolean().nullish(),
    previous_response_id: z.string().max(200).nullish(),
    metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
  })
  .passthrough();
export type ResponseRequest = z.infer<typeof responseRequestSchema>;

const textOf = (value: z.infer<typeof content> | undefined) =>
  typeof value === 'string' ? value : (value ?? []).map((piece) => (['input_text', 'output_text', 'text'].includes(piece.type) && piece.text ? piece.text : '')).join('\n');

/** The user's words to deliver: the string, or the newest user message among the items. */
function newestUserText(input: ResponseRequest['input']): { text: string; upTo: number } {
  if (typeof input === 'string') return { text: input.trim(), upTo: 0 };
  const output = input.find((item) => item.type === 'function_call_output');
  if (output) throw new DoorError(400, 'invalid_request_error', 'invalid_function_call_output', `No function call ${String(output.call_id ?? '').slice(0, 64)} was made in this conversation: this door offers the mind's own tools, not the client's.`, 'input');
  const index = input.map((item) => (item.type === undefined || item.type === 'message') && item.role === 'user').lastIndexOf(true);
  if (index < 0) throw new DoorError(400, 'invalid_request_error', null, 'The input holds no user message to deliver.', 'input');
  return { text: textOf(input[index]!.content).trim(), upTo: index };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface Shape {
  id: string;
  createdAt: number;
  request: ResponseRequest;
  sessionId: string;
}

/** The Response object, in the API's shape, as it stands. */
function responseObject(shape: Shape, state: { status: 'in_progress' | 'completed' | 'failed'; output: Record<string, unknown>[]; usage?: { prompt: number; completion: number }; error?: { code: string; message: string } }) {
  const { request } = shape;
  return {
    id: shape.id,
    object: 'response',
    created_at: shape.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: null,
    model: request.model,
    output: state.output,
    parallel_tool_calls: true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: request.store !== false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: state.usage
      ? { input_tokens: state.usage.prompt, input_tokens_details: { cached_tokens: 0 }, output_tokens: state.usage.completion, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: state.usage.prompt + state.usage.completion }
      : null,
    user: null,
    metadata: { ...(request.metadata ?? {}), session_id: shape.sessionId },
  };
}

const messageItem = (id: string, text: string, status: 'in_progress' | 'completed') => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: status === 'in_progress' && !text ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

/** The session a request continues: its previous response's (the key's own, of the same persona), else what it names. */
async function continuedSession(key: ApiKeyRecord, request: ResponseRequest): Promise<string | null> {
  if (!request.previous_response_id) return request.metadata?.session_id ?? null;
  const previous = await findDoorResponse(key.id, request.previous_response_id);
  if (!previous) throw new DoorError(404, 'invalid_request_error', 'previous_response_not_found', `Previous response with id '${request.previous_response_id.slice(0, 80)}' not found.`, 'previous_response_id');
  if (previous.body.model !== request.model) throw new DoorError(400, 'invalid_request_error', null, `The previous response is ${String(previous.body.model)}'s conversation: continue it with that model.`, 'previous_response_id');
  return previous.sessionId;
}

/** A response, whole or as server-sent events. */
export async function createResponse(orchestrator: Orchestrator, key: ApiKeyRecord, request: ResponseRequest, baseUrl: string): Promise<Response> {
  const persona = personaOf(key, request.model);
  const { text, upTo } = newestUserText(request.input);
  if (!text) throw new DoorError(400, 'invalid_request_error', null, 'The newest user message is empty.', 'input');
  const refusal = messageRefusal(text);
  if (refusal) throw new DoorError(400, 'invalid_request_error', 'message_refused', `The newest user message is refused: ${refusal}.`, 'input');
  const named = await continuedSession(key, request);
  // A client's retry of the same request (the same conversation so far) is answered by the first delivery.
  const items = typeof request.input === 'string' ? [['user', text]] : request.input.slice(0, upTo + 1).map((item) => [item.role ?? item.type ?? '', textOf(item.content)]);
  const conversation = createHash('sha256').update(JSON.stringify([request.previous_response_id ?? null, items])).digest('hex');
  return inLane(`${key.id}:${persona}:${named ?? ''}`, async (release) => {
    const tap = new EventTap(orchestrator);
    let delivery: Delivery;
    try {
      delivery = await deliver(orchestrator, key, persona, { door: 'openai', text, conversation, sessionId: named });
    } catch (error) {
      tap.stop();
      throw error;
    }
    const shape: Shape = { id: `resp_${hex(16)}`, createdAt: Math.floor(Date.now() / 1000), request, sessionId: delivery.sessionId };
    const keep = async (body: ReturnType<typeof responseObject>) => {
      if (request.store !== false) await saveDoorResponse({ id: shape.id, keyId: key.id, sessionId: delivery.sessionId, body });
    };
    const itemId = `msg_${hex(16)}`;
    if (!request.stream) {
      const answer = await reply(tap, delivery, baseUrl, { id: shape.id }).finally(release);
      const body = responseObject(shape, { status: 'completed', output: [messageItem(itemId, answer.text, 'completed')], usage: answer.usage });
      await keep(body);
      return Response.json(body);
    }
    return streamed(shape, { tap, delivery, baseUrl, itemId, keep, release });
  });
}

/** The documented event sequence: created, in progress, the message item and its text part, deltas, done, completed (or failed). */
function streamed(shape: Shape, input: { tap: EventTap; delivery: Delivery; baseUrl: string; itemId: string; keep: (body: ReturnType<typeof responseObject>) => Promise<void>; release: () => void }): Response {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  let sequence = 0;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (type: string, fields: Record<string, unknown>) => {
        if (!gone.signal.aborted) controller.enqueue(encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`));
      };
      const where = { item_id: input.itemId, output_index: 0, content_index: 0 };
      const started = responseObject(shape, { status: 'in_progress', output: [] });
      await input.keep(started).catch((error: unknown) => console.error('[responses door] could not keep the response', error));
      send('response.created', { response: started });
      send('response.in_progress', { response: started });
      send('response.output_item.added', { output_index: 0, item: messageItem(input.itemId, '', 'in_progress') });
      send('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
      try {
        const answer = await reply(input.tap, input.delivery, input.baseUrl, { id: shape.id, signal: gone.signal, onText: (delta) => send('response.output_text.delta', { ...where, delta, logprobs: [] }) });
        const item = messageItem(input.itemId, answer.text, 'completed');
        send('response.output_text.done', { ...where, text: answer.text, logprobs: [] });
        send('response.content_part.done', { ...where, part: item.content[0] });
        send('response.output_item.done', { output_index: 0, item });
        const done = responseObject(shape, { status: 'completed', output: [item], usage: answer.usage });
        await input.keep(done);
        send('response.completed', { response: done });
      } catch (error) {
        // The client hears a safe sentence; the detail goes to the log (red-team round 4).
        console.error('[responses door] the reply failed', error);
        const failed = responseObject(shape, { status: 'failed', output: [], error: { code: 'server_error', message: 'The reply could not be completed; what the mind said is in the session.' } });
        await input.keep(failed).catch(() => undefined);
        send('response.failed', { response: failed });
      }
      input.release();
      if (!gone.signal.aborted) controller.close();
    },
    // The client hung up: the reply stops listening (the turn goes on in the session).
    cancel() {
      gone.abort();
      input.release();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } });
}

/** `POST /v1/responses`. */
export const postResponse = doorHandler(async (request) => {
  const key = await doorKey(request);
  const body = await readJsonBody(request, responseRequestSchema, 8 * 1024 * 1024);
  return createResponse(getOrchestrator(), key, body, new URL(request.url).origin);
});

const responseIdSchema = z.string().regex(/^resp_[0-9a-f]{32}$/);

/** A key's stored response, or the API's 404. */
export async function storedResponse(key: ApiKeyRecord, id: string) {
  const found = responseIdSchema.safeParse(id).success ? await findDoorResponse(key.id, id) : null;
  if (!found) throw new DoorError(404, 'invalid_request_error', 'not_found', `No response found with id '${id.slice(0, 80)}'.`, 'response_id');
  return found;
}
