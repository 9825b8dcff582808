// The door an agent front-end uses (issue 46 §4): what `npm run acp` needs from the running app,
// with a key — a new session of a persona for the key's person, a message whose turn streams back
// as typed events (the reply, the private thoughts, every change of its tool calls), a card decided
// by the key's person when the rights authority lets them (lib/people/rights.ts), and a stop. Server-sent events, one JSON object per event.
import { z } from 'zod';
import { getToolCall } from '@/lib/store/tool-calls-repository';
import { findPerson } from '@/lib/store/people-repository';
import { findSession } from '@/lib/store/sessions-repository';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import type { ApiKeyRecord } from '@/lib/store/api-keys-repository';
import { keyReachesPersona } from '@/lib/people/rights';
import { messageTextSchema } from '@/lib/config/message-text';
import { deliver, doorSessionName, DoorError, EventTap, reply, requireUsable } from './door-conversation';

export const newAgentSessionSchema = z.object({ persona: z.string().min(1).max(64) }).strict();
export const agentMessageSchema = z.object({ text: messageTextSchema.pipe(z.string().min(1, 'text must not be empty')) }).strict();
export const agentDecisionSchema = z.object({ decision: z.enum(['approve', 'deny']), reason: z.string().max(2_000).optional() }).strict();

/** A new session of the persona for the key's person (an ACP client opens one per conversation). */
export async function newAgentSession(orchestrator: Orchestrator, key: ApiKeyRecord, persona: string): Promise<string> {
  if (!keyReachesPersona(key, persona)) throw new DoorError(404, 'not_found_error', 'persona_not_found', `No persona ${persona.slice(0, 64)} for this key`);
  return (await orchestrator.createSession({ persona, name: await doorSessionName(key, persona, 'ACP') }, { people: [key.personId] })).id;
}

async function personaOfSession(key: ApiKeyRecord, sessionId: string): Promise<string> {
  const row = z.string().uuid().safeParse(sessionId).success ? await findSession({ id: sessionId }) : null;
  if (!row || !keyReachesPersona(key, row.personaName)) throw new DoorError(404, 'not_found_error', 'session_not_found', `No session ${sessionId.slice(0, 64)} this key may use`);
  await requireUsable(key, row.personaName, sessionId);
  return row.personaName;
}

/** The message delivered, and its turn as server-sent events until it ends. */
export async function agentMessage(orchestrator: Orchestrator, key: ApiKeyRecord, sessionId: string, text: string, baseUrl: string): Promise<Response> {
  const persona = await personaOfSession(key, sessionId);
  const tap = new EventTap(orchestrator);
  let delivery;
  try {
    delivery = await deliver(orchestrator, key, persona, { door: 'acp', text, conversation: null, sessionId });
  } catch (error) {
    tap.stop();
    throw error;
  }
  const encoder = new TextEncoder();
  const gone = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Nothing is written to a client that hung up (red-team round 4: its listener threw on every event).
      const send = (event: Record<string, unknown>) => !gone.signal.aborted && controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
      send({ type: 'start', session_id: delivery.sessionId, message_id: delivery.messageId });
      try {
        const answer = await reply(tap, delivery, baseUrl, {
          id: 'agent',
          signal: gone.signal,
          onText: (words) => send({ type: 'reply', text: words }),
          onThought: (words) => send({ type: 'thought', text: words }),
          onToolCall: (call) => send({ type: 'tool_call', call: { id: call.id, name: call.name, status: call.status, args: call.args, untrusted_reason: call.untrusted_reason, result: call.result } }),
        });
        send({ type: 'end', finish: answer.finish, usage: answer.usage });
      } catch (error) {
        console.error('[agent door] the reply failed', error);
        send({ type: 'error', message: 'The reply could not be completed; what the mind said is in the session.' });
      }
      if (!gone.signal.aborted) controller.close();
    },
    cancel() {
      gone.abort();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } });
}

/** A card decided from the agent front-end, when the key's person may decide it. */
export async function agentDecision(orchestrator: Orchestrator, key: ApiKeyRecord, callId: string, decision: z.infer<typeof agentDecisionSchema>) {
  const call = z.string().uuid().safeParse(callId).success ? await getToolCall({ id: callId }) : null;
  if (!call) throw new DoorError(404, 'not_found_error', 'tool_call_not_found', `No tool call ${callId.slice(0, 64)}`);
  await personaOfSession(key, call.sessionId);
  // The key's person on this door, as the rights authority reads them (never a rule of the door's own).
  const actor = { person: await findPerson(key.personId), via: `door:${key.id}` as const };
  const result = await orchestrator.decideToolCall({ id: call.id, decision: decision.decision, ...(decision.reason && { reason: decision.reason }), args_hash: call.argsHash, session_id: call.sessionId }, actor);
  if (!result.ok && result.code === 'forbidden') throw new DoorError(403, 'permission_error', 'not_allowed', result.message);
  if (!result.ok) throw new DoorError(result.code === 'not_found' ? 404 : 409, 'invalid_request_error', result.code, result.message);
  return { tool_call: { id: result.call.id, status: result.call.status } };
}

/** Stops the reply being written in a session of the key. */
export async function agentStop(orchestrator: Orchestrator, key: ApiKeyRecord, sessionId: string): Promise<{ stopped: boolean }> {
  await personaOfSession(key, sessionId);
  return { stopped: await orchestrator.stopTurn(sessionId) };
}
