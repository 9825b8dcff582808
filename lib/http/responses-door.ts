// The Responses API door (issue 78 §1): `POST /v1/responses` in OpenAI's shapes, for the clients that
// speak it (the Agents SDK, `client.responses.create`, the Codex CLI), on the same conversation
// module as the Chat Completions door — the same keys, persona-as-model, people, rights, daily
// limits, lanes and traces (door-conversation.ts). The newest user message of `input` is delivered
// to the key's session of the persona (or the one `previous_response_id` continues, or
// `metadata.session_id` names); the answer is the Internal Dialog's externalised text, whole or as
// the documented stream of events (responses-shape.ts). The client's own function tools are offered
// to the turn that answers (lib/tools/client-tools.ts): a call of one ends the response as a
// `function_call` item, and the client's `function_call_output` in its next request lets the same
// turn go on. A response is kept unless `store: false`, for `GET /v1/responses/:id`.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { getOrchestrator, type Orchestrator } from '@/lib/orchestrator/orchestrator';
import type { ApiKeyRecord } from '@/lib/store/api-keys-repository';
import { findDoorResponse, saveDoorResponse } from '@/lib/store/door-responses-repository';
import { messageRefusal } from '@/lib/config/message-text';
import { clientToolNameSchema, offerClientTools, type ClientToolDefinition } from '@/lib/tools/client-tools';
import type { ToolInputSchema } from '@/lib/tools/tool-types';
import { answerClientCalls, functionOutputsOf } from './client-outputs';
import { deliver, DoorError, EventTap, inLane, keySessionFor, reply, type Delivery } from './door-conversation';
import { doorHandler, doorKey, personaOf } from './openai-door';
import { hex, outputOf, ResponseEvents, responseObject, type ResponseBody, type Shape } from './responses-shape';
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
const toolSchema = z
  .object({ type: z.string().max(100), name: z.string().max(200).optional(), description: z.string().max(20_000).nullish(), parameters: z.record(z.string(), z.unknown()).nullish() })
  .passthrough();
export const responseRequestSchema = z
  .object({
    model: z.string().min(1).max(200),
    input: z.union([z.string(), z.array(inputItem).max(5_000)]),
    instructions: z.string().max(200_000).nullish(),
    stream: z.boolean().nullish(),
    store: z.boolean().nullish(),
    previous_response_id: z.string().max(200).nullish(),
    metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
    tools: z.array(toolSchema).max(128).nullish(),
  })
  .passthrough();
export type ResponseRequest = z.infer<typeof responseRequestSchema>;

const textOf = (value: z.infer<typeof content> | undefined) =>
  typeof value === 'string' ? value : (value ?? []).map((piece) => (['input_text', 'output_text', 'text'].includes(piece.type) && piece.text ? piece.text : '')).join('\n');

/** The user's words to deliver: the string, or the newest user message among the items (`upTo` -1: none). */
function newestUserText(input: ResponseRequest['input']): { text: string; upTo: number } {
  if (typeof input === 'string') return { text: input.trim(), upTo: 0 };
  const index = input.map((item) => (item.type === undefined || item.type === 'message') && item.role === 'user').lastIndexOf(true);
  return { text: index < 0 ? '' : textOf(input[index]!.content).trim(), upTo: index };
}

/** The client's function tools (other kinds — web search, a hosted shell — are the client's provider's, not offered). */
function clientToolsOf(request: ResponseRequest): ClientToolDefinition[] {
  return (request.tools ?? []).flatMap((tool, index) => {
    if (tool.type !== 'function') return [];
    if (!clientToolNameSchema.safeParse(tool.name).success) throw new DoorError(400, 'invalid_request_error', 'invalid_tool', `tools[${index}].name must be 1–56 letters, digits, _ or -.`, `tools[${index}].name`);
    const parameters = tool.parameters && tool.parameters.type === 'object' ? (tool.parameters as ToolInputSchema) : { type: 'object' as const, properties: {} };
    return [{ name: tool.name!, description: tool.description ?? '', parameters }];
  });
}

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
  const tools = clientToolsOf(request);
  const outputs = functionOutputsOf(request.input);
  const named = await continuedSession(key, request);
  return inLane(`${key.id}:${persona}:${named ?? ''}`, async (release) => {
    const tap = new EventTap(orchestrator);
    let delivery: Delivery;
    try {
      const sessionId = await keySessionFor(orchestrator, key, persona, named);
      // The client's outputs for its functions: the turn waiting on them goes on, and this response is what it says next.
      const answered = outputs.length > 0 ? await answerClientCalls(orchestrator, sessionId, outputs) : { turnId: null, unknown: [] };
      if (answered.turnId) delivery = { sessionId, messageId: 0, resent: false, turnId: answered.turnId };
      else {
        const { text, upTo } = newestUserText(request.input);
        // Outputs after the newest user message, and none for a call that waits: they answer nothing.
        if (answered.unknown.length > 0 && upTo < (request.input as unknown[]).length - 1) {
          throw new DoorError(400, 'invalid_request_error', 'invalid_function_call_output', `No function call ${answered.unknown[0]!.slice(0, 64)} of this conversation waits for an output.`, 'input');
        }
        if (upTo < 0) throw new DoorError(400, 'invalid_request_error', null, 'The input holds no user message to deliver.', 'input');
        if (!text) throw new DoorError(400, 'invalid_request_error', null, 'The newest user message is empty.', 'input');
        const refusal = messageRefusal(text);
        if (refusal) throw new DoorError(400, 'invalid_request_error', 'message_refused', `The newest user message is refused: ${refusal}.`, 'input');
        // A client's retry of the same request (the same conversation so far) is answered by the first delivery.
        const items = typeof request.input === 'string' ? [['user', text]] : request.input.slice(0, upTo + 1).map((item) => [item.role ?? item.type ?? '', textOf(item.content)]);
        const conversation = createHash('sha256').update(JSON.stringify([request.previous_response_id ?? null, items])).digest('hex');
        offerClientTools(sessionId, tools); // for the turn that answers this message
        delivery = await deliver(orchestrator, key, persona, { door: 'openai', text, conversation, sessionId });
      }
    } catch (error) {
      tap.stop();
      throw error;
    }
    const shape: Shape = {
      id: `resp_${hex(16)}`,
      createdAt: Math.floor(Date.now() / 1000),
      model: request.model,
      instructions: request.instructions ?? null,
      previousResponseId: request.previous_response_id ?? null,
      store: request.store !== false,
      metadata: request.metadata ?? {},
      sessionId: delivery.sessionId,
      tools: request.tools ?? [],
    };
    const keep = async (body: ResponseBody) => {
      if (shape.store) await saveDoorResponse({ id: shape.id, keyId: key.id, sessionId: delivery.sessionId, body });
    };
    const messageId = `msg_${hex(16)}`;
    if (!request.stream) {
      const answer = await reply(tap, delivery, baseUrl, { id: shape.id, clientTools: true }).finally(release);
      const body = responseObject(shape, { status: 'completed', output: outputOf(messageId, answer), usage: answer.usage });
      await keep(body);
      return Response.json(body);
    }
    return streamed(shape, { tap, delivery, baseUrl, messageId, keep, release });
  });
}

/** The documented event sequence: created, in progress, the items as they come, completed (or failed). */
function streamed(shape: Shape, input: { tap: EventTap; delivery: Delivery; baseUrl: string; messageId: string; keep: (body: ResponseBody) => Promise<void>; release: () => void }): Response {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const events = new ResponseEvents((chunk) => !gone.signal.aborted && controller.enqueue(encoder.encode(chunk)), input.messageId);
      const started = responseObject(shape, { status: 'in_progress', output: [] });
      await input.keep(started).catch((error: unknown) => console.error('[responses door] could not keep the response', error));
      events.send('response.created', { response: started });
      events.send('response.in_progress', { response: started });
      try {
        const answer = await reply(input.tap, input.delivery, input.baseUrl, { id: shape.id, signal: gone.signal, clientTools: true, onText: (delta) => events.delta(delta) });
        const done = responseObject(shape, { status: 'completed', output: events.end(answer), usage: answer.usage });
        await input.keep(done);
        events.send('response.completed', { response: done });
      } catch (error) {
        // The client hears a safe sentence; the detail goes to the log (red-team round 4).
        console.error('[responses door] the reply failed', error);
        const failed = responseObject(shape, { status: 'failed', output: [], error: { code: 'server_error', message: 'The reply could not be completed; what the mind said is in the session.' } });
        await input.keep(failed).catch(() => undefined);
        events.send('response.failed', { response: failed });
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
