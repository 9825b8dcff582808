// The OpenAI-compatible door (issue 46 §2, ARCHITECTURE §23): `/v1/models` and
// `/v1/chat/completions` in OpenAI's shapes, for any client that speaks that API, with a key of
// Settings › Access. The client is stateless, the mind is not: a request's newest user message is
// delivered to the key's session of the persona it names (`persona/<name>`; made on first use, or
// the one `metadata.session_id` names), and the rest of what the client resends is context the mind
// already holds — a request whose conversation was delivered before delivers nothing again and gets
// that delivery's reply. The answer is the Internal Dialog's externalised text; a card raised on the
// way is said in the answer, with where to decide it, and the call waits for the reply up to a limit.
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { getOrchestrator, type Orchestrator } from '@/lib/orchestrator/orchestrator';
import { authenticateApiKey, type ApiKeyRecord } from '@/lib/store/api-keys-repository';
import { deliver, DoorError, EventTap, inLane, reply, type Delivery } from './door-conversation';
import { toApiError } from './api-error';
import { readJsonBody } from './route-helpers';
import { keyReachesPersona, personasOfKey } from '@/lib/people/rights';
import { messageRefusal } from '@/lib/config/message-text';

/** OpenAI's error body. */
export function doorErrorResponse(error: DoorError): Response {
  return Response.json({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }, { status: error.status });
}

const part = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const messageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: z.union([z.string(), z.array(part), z.null()]).optional(),
  })
  .passthrough();
export const chatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).max(200),
    messages: z.array(messageSchema).min(1).max(2_000),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
    metadata: z.record(z.string(), z.string().max(512)).nullish(),
  })
  .passthrough();
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

export const modelIdOf = (persona: string) => `persona/${persona}`;

const textOf = (content: z.infer<typeof messageSchema>['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((piece) => (piece.type === 'text' && piece.text ? piece.text : '')).join('\n');

/** The persona a model id names, if the key may use it and it exists. */
export function personaOf(key: ApiKeyRecord, model: string): string {
  const name = /^persona\/(.+)$/.exec(model)?.[1];
  if (!name || !keyReachesPersona(key, name)) throw new DoorError(404, 'invalid_request_error', 'model_not_found', `The model \`${model}\` does not exist or you do not have access to it.`, 'model');
  return name;
}

/** The models this key may use: one per persona. */
export function modelsFor(key: ApiKeyRecord) {
  return { object: 'list', data: personasOfKey(key).map((name) => ({ id: modelIdOf(name), object: 'model', created: Math.floor(key.createdAt.getTime() / 1000), owned_by: 'agentcsd' })) };
}

/** A chat completion, whole or as server-sent events. */
export async function chatCompletion(orchestrator: Orchestrator, key: ApiKeyRecord, request: ChatCompletionRequest, baseUrl: string): Promise<Response> {
  const persona = personaOf(key, request.model);
  const lastUser = request.messages.map((message) => message.role).lastIndexOf('user');
  if (lastUser < 0) throw new DoorError(400, 'invalid_request_error', null, 'The messages hold no user message to deliver.', 'messages');
  const text = textOf(request.messages[lastUser]!.content).trim();
  if (!text) throw new DoorError(400, 'invalid_request_error', null, 'The newest user message is empty.', 'messages');
  const refusal = messageRefusal(text);
  if (refusal) throw new DoorError(400, 'invalid_request_error', 'message_refused', `The newest user message is refused: ${refusal}.`, 'messages');
  const conversation = createHash('sha256')
    .update(JSON.stringify(request.messages.slice(0, lastUser + 1).map((message) => [message.role, textOf(message.content)])))
    .digest('hex');
  // One request of a key's conversation at a time: each gets its own turn and reply (door-conversation.ts).
  return inLane(`${key.id}:${persona}:${request.metadata?.session_id ?? ''}`, async (release) => {
    const tap = new EventTap(orchestrator);
    let delivery: Delivery;
    try {
      delivery = await deliver(orchestrator, key, persona, { door: 'openai', text, conversation, sessionId: request.metadata?.session_id });
    } catch (error) {
      tap.stop();
      throw error;
    }
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    if (!request.stream) {
      const answer = await reply(tap, delivery, baseUrl, { id }).finally(release);
      return Response.json({
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer.text, refusal: null }, logprobs: null, finish_reason: answer.finish }],
        usage: { prompt_tokens: answer.usage.prompt, completion_tokens: answer.usage.completion, total_tokens: answer.usage.prompt + answer.usage.completion },
        metadata: { session_id: delivery.sessionId },
      });
    }
    const encoder = new TextEncoder();
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      encoder.encode(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`);
    const gone = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(chunk({ role: 'assistant', content: '' }, null));
        try {
          const answer = await reply(tap, delivery, baseUrl, { id, signal: gone.signal, onText: (text) => !gone.signal.aborted && controller.enqueue(chunk({ content: text }, null)) });
          if (gone.signal.aborted) return;
          controller.enqueue(chunk({}, answer.finish));
          if (request.stream_options?.include_usage) {
            const usage = { prompt_tokens: answer.usage.prompt, completion_tokens: answer.usage.completion, total_tokens: answer.usage.prompt + answer.usage.completion };
            controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage })}\n\n`));
          }
        } catch (error) {
          // The client hears a safe sentence; the detail goes to the log (red-team round 4).
          console.error('[openai door] the reply failed', error);
          if (gone.signal.aborted) return;
          controller.enqueue(encoder.encode(`data: ${JSON.stringify({ error: { message: 'The reply could not be completed; what the mind said is in the session.', type: 'server_error', param: null, code: null } })}\n\n`));
        }
        release();
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      },
      // The client hung up: the reply stops listening (the turn goes on in the session).
      cancel() {
        gone.abort();
        release();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } });
  });
}

/** The key a door request carries, or a 401 in OpenAI's words. */
export async function doorKey(request: Request): Promise<ApiKeyRecord> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  if (!bearer) throw new DoorError(401, 'invalid_request_error', 'invalid_api_key', 'You did not provide an API key: send it as "Authorization: Bearer acsd_…" (Settings › Access).');
  const key = await authenticateApiKey(bearer);
  if (!key) throw new DoorError(401, 'invalid_request_error', 'invalid_api_key', 'Incorrect API key provided: it is unknown or was revoked (Settings › Access).');
  return key;
}

/** Runs a door's handler: every failure answers in OpenAI's error shape, never the page's. */
export function doorHandler(handler: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      if (error instanceof DoorError) return doorErrorResponse(error);
      const api = toApiError(error);
      const status = api.status >= 500 ? 500 : api.status;
      return doorErrorResponse(new DoorError(status, status >= 500 ? 'server_error' : 'invalid_request_error', api.body.code, api.body.message));
    }
  };
}

/** `POST /v1/chat/completions`: served by the app's route and, on its hot path, by the server itself (web-bridge.ts). */
export const postChatCompletion = doorHandler(async (request) => {
  const key = await doorKey(request);
  const body = await readJsonBody(request, chatCompletionRequestSchema, 4 * 1024 * 1024);
  return chatCompletion(getOrchestrator(), key, body, new URL(request.url).origin);
});
