// What the doors share (issue 46, ARCHITECTURE §23): a key's message delivered to its session of a
// persona — made on first use, or one it names that is that persona's and its person's — and the
// reply waited for: the text of the turn that answers it as it streams, its usage, a card on the
// way said with where to decide it, a limit on the wait. A door's message enters the mind as its
// key's person's message, like a channel's.
import { z } from 'zod';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { findKeySession, saveKeySession, type ApiKeyRecord } from '@/lib/store/api-keys-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { findPerson, type PersonRecord } from '@/lib/store/people-repository';
import { deliverMessage, personLabel, speakThroughDoor } from '@/lib/people/rights';
import { waitingCardTool, type ToolCallJson } from '@/lib/store/tool-calls-repository';
import { replyToMessage } from '@/lib/store/messages-repository';
import { inSpan } from '@/lib/telemetry/traces';
import { processSlot } from '@/lib/process/process-state';
import { isClientTool } from '@/lib/tools/client-tools';

/** How long a call waits for the mind's reply (a card may be waiting for a person). */
export const DOOR_WAIT_MS = 120_000;

export class DoorError extends Error {
  constructor(
    readonly status: number,
    readonly type: 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'server_error',
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** Per conversation of a key, the request now being answered: the next waits for it (see `inLane`). */
const lanes = processSlot('http.door-lanes', () => new Map<string, Promise<void>>()).value;

/**
 * Runs a request's delivery and reply after the ones before it in the same lane (a key's
 * conversation): parallel requests on one key each get a turn and a reply of their own — delivered
 * together they would be answered by one turn, several clients getting the same text (issue 58 §7).
 * `release` is called when the reply is done (a streamed one ends later than `work` returns). One
 * process's lanes: requests spread over several web processes are not ordered by it.
 */
export async function inLane<T>(lane: string, work: (release: () => void) => Promise<T>): Promise<T> {
  const before = lanes.get(lane) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = before.then(() => mine);
  lanes.set(lane, tail);
  void tail.then(() => lanes.get(lane) === tail && lanes.delete(lane));
  await before;
  try {
    return await work(release);
  } catch (error) {
    release();
    throw error;
  }
}

export interface Delivery {
  sessionId: string;
  messageId: number;
  /** Resent: this conversation was delivered before; its reply is the answer. */
  resent: boolean;
  /** A turn already running, waiting on the client's own tools: the reply is what it says from now on (issue 78 §1). */
  turnId?: string;
}

/**
 * Delivers a message to the key's session of the persona (made on first use) or the one it names.
 * `conversation`: a digest of what the client sent up to this message — when it is the one last
 * delivered, nothing is delivered again (a client's retry) and that delivery is answered.
 */
export function deliver(orchestrator: Orchestrator, key: ApiKeyRecord, persona: string, input: { door: 'openai' | 'mcp' | 'acp'; text: string; conversation: string | null; sessionId?: string | null }): Promise<Delivery> {
  // The door's request is a span: the turn that answers, in whichever process, is in its trace.
  return inSpan({ kind: 'door', door: input.door, persona }, () => deliverNow(orchestrator, key, persona, input));
}

async function deliverNow(orchestrator: Orchestrator, key: ApiKeyRecord, persona: string, input: { text: string; conversation: string | null; sessionId?: string | null }): Promise<Delivery> {
  const { text, conversation } = input;
  const known = await findKeySession(key.id, persona);
  const person = await findPerson(key.personId); // read once for the checks below
  const sessionId = await keySessionFor(orchestrator, key, persona, input.sessionId ?? null, known, person);
  if (conversation && known && known.sessionId === sessionId && known.lastConversation === conversation && known.lastMessageId !== null) return { sessionId, messageId: known.lastMessageId, resent: true };
  // The key's person's daily messages, counted as on every other entry (the rights authority).
  const allowed = await deliverMessage(person, new Date());
  if (allowed.verdict === 'refuse') throw new DoorError(429, 'invalid_request_error', 'daily_message_limit', allowed.reason);
  const message = await orchestrator.sendUserMessage(sessionId, { text });
  await saveKeySession({ keyId: key.id, personaName: persona, sessionId, lastConversation: conversation, lastMessageId: message.id });
  return { sessionId, messageId: message.id, resent: false };
}

/** The session a key talks to: the one it names (checked), else its own of the persona, made on first use. */
export async function keySessionFor(
  orchestrator: Orchestrator,
  key: ApiKeyRecord,
  persona: string,
  named: string | null,
  known?: Awaited<ReturnType<typeof findKeySession>>,
  person?: PersonRecord | null,
): Promise<string> {
  if (named) {
    await requireUsable(key, persona, named, person);
    return named;
  }
  const own = known === undefined ? await findKeySession(key.id, persona) : known;
  if (own && (await findSession({ id: own.sessionId }))) return own.sessionId; // else deleted since: a new one
  const sessionId = (await orchestrator.createSession({ persona, name: await doorSessionName(key, persona, 'API') }, { people: [key.personId] })).id;
  await saveKeySession({ keyId: key.id, personaName: persona, sessionId, lastConversation: null, lastMessageId: null });
  return sessionId;
}

/** A door's session is named by its person and the key ("iris · Alice, key laptop (API)"). */
export async function doorSessionName(key: ApiKeyRecord, persona: string, door: 'API' | 'ACP'): Promise<string> {
  const person = await findPerson(key.personId);
  return `${persona} · ${person ? personLabel(person) : 'someone'}, key ${key.name} (${door})`.slice(0, 200);
}

/** A session a key may name: of the persona, and its person's conversation. */
export async function requireUsable(key: ApiKeyRecord, persona: string, sessionId: string, person?: PersonRecord | null): Promise<void> {
  const session = z.string().uuid().safeParse(sessionId).success ? await findSession({ id: sessionId }) : null;
  const member = session && (await speakThroughDoor({ person: person === undefined ? await findPerson(key.personId) : person, via: `door:${key.id}` }, sessionId)).verdict === 'allow';
  if (!session || session.personaName !== persona || !member) throw new DoorError(404, 'invalid_request_error', 'session_not_found', `No session ${sessionId.slice(0, 64)} of persona/${persona} this key may use.`, 'metadata.session_id');
}

export interface ReplyStream {
  id: string;
  /** The reply's text as it streams, and notices (a card waiting) unless `onToolCall` takes the calls. */
  onText?: (text: string) => void;
  /** The private thoughts (ID_quiet) as they stream: for a client that shows them (ACP). */
  onThought?: (text: string) => void;
  /** Every change of the turn's tool calls, cards included: the client shows and decides them itself. */
  onToolCall?: (call: ToolCallJson) => void;
  /** The client went away (its stream was cancelled): stop listening at once, say nothing more. */
  signal?: AbortSignal;
  /** The client offered its own functions: a call of one ends the reply, handed to the client in `calls`. */
  clientTools?: boolean;
}

export interface DoorReply {
  text: string;
  usage: { prompt: number; completion: number };
  finish: 'stop' | 'length' | 'tool_calls';
  /** Calls of the client's own functions, for the client to run (`finish: "tool_calls"`). */
  calls: ToolCallJson[];
}

/**
 * The app's events from before the delivery on: the turn that answers a message may start before
 * the delivery returns. Handed to one listener once it knows what it waits for.
 */
export class EventTap {
  private readonly seen: OrchestratorEvent[] = [];
  private listener: ((event: OrchestratorEvent) => void) | null = null;
  readonly stop: () => void;

  constructor(orchestrator: Orchestrator) {
    this.stop = orchestrator.bus.subscribe((event) => (this.listener ? this.listener(event) : this.seen.push(event)));
  }

  listen(listener: (event: OrchestratorEvent) => void): void {
    for (const event of this.seen.splice(0)) listener(event);
    this.listener = listener;
  }
}

/** The reply to a delivered message: the text of the turn that answers it (waited for), its usage. */
export async function reply(tap: EventTap, delivery: Delivery, baseUrl: string, stream: ReplyStream): Promise<DoorReply> {
  if (delivery.resent) {
    const answered = await answerOf(delivery);
    if (answered !== null) {
      tap.stop();
      stream.onText?.(answered);
      return { text: answered, usage: { prompt: 0, completion: 0 }, finish: 'stop', calls: [] };
    }
  }
  // A card already waits in this conversation (raised by an earlier request): this one does not wait
  // on it either — its message is queued and answered in the session once the card is decided.
  const waiting = stream.onToolCall || delivery.turnId ? null : await cardWaiting(delivery);
  if (waiting) {
    tap.stop();
    const note = delivery.resent ? cardNote(waiting, baseUrl, delivery.sessionId) : `[${waiting} waits for a person's approval in this conversation: ${baseUrl}/sessions/${delivery.sessionId}. This message is answered there once it is decided.]`;
    stream.onText?.(note);
    return { text: note, usage: { prompt: 0, completion: 0 }, finish: 'stop', calls: [] };
  }
  return new Promise((resolve, reject) => {
    let turnId: string | null = delivery.turnId ?? null;
    let text = '';
    const usage = { prompt: 0, completion: 0 };
    const cards = new Set<string>();
    const calls: ToolCallJson[] = [];
    let done = false;
    const finish = (finishReason: DoorReply['finish'], error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      tap.stop();
      if (error) reject(error);
      else resolve({ text, usage, finish: finishReason, calls });
    };
    const say = (spoken: string) => {
      // A turn that goes on after the client's output starts its new words where the step broke the line.
      const words = delivery.turnId && !text ? spoken.replace(/^\s+/, '') : spoken;
      if (!words) return;
      text += words;
      stream.onText?.(words);
    };
    const timer = setTimeout(() => {
      say(`${text ? '\n\n' : ''}[No reply within ${DOOR_WAIT_MS / 1000} s${cards.size ? ': a card is still waiting for a decision' : ''}. It comes in the session: ${baseUrl}/sessions/${delivery.sessionId}]`);
      finish('length');
    }, DOOR_WAIT_MS);
    timer.unref();
    // A client that hung up is not written to again (red-team round 4: an aborted stream's listener
    // threw on every later event of the app).
    if (stream.signal?.aborted) return finish('stop');
    stream.signal?.addEventListener('abort', () => finish('stop'), { once: true });
    tap.listen((event: OrchestratorEvent) => {
      if (done || event.sessionId !== delivery.sessionId) return;
      if (event.type === 'turn-start' && event.answering.includes(delivery.messageId)) turnId = event.turnId;
      else if (event.type === 'reply-delta' && event.turnId === turnId) say(event.text);
      else if (event.type === 'thought-delta' && event.turnId === turnId) stream.onThought?.(event.text);
      else if (event.type === 'tool-call' && event.call.turn_id === turnId && stream.clientTools && isClientTool(event.call.name)) {
        // The client runs its own functions: every call of the step, handed over together.
        if (event.call.status === 'running' && !calls.some((call) => call.id === event.call.id)) {
          if (calls.length === 0) setImmediate(() => finish('tool_calls'));
          calls.push(event.call);
        }
      } else if (event.type === 'tool-call' && event.call.turn_id === turnId && stream.onToolCall) stream.onToolCall(event.call);
      else if (event.type === 'usage' && turnId && event.layer === 'internal') {
        usage.prompt += event.call.inputTokens;
        usage.completion += event.call.outputTokens;
      } else if (event.type === 'tool-call' && event.call.turn_id === turnId && event.call.status === 'awaiting_approval' && !cards.has(event.call.id)) {
        // A door never waits on a card (issue 58 §7): the reply ends here, saying where to decide it;
        // what the turn does once it is decided comes in the session.
        cards.add(event.call.id);
        say(`${text ? '\n\n' : ''}${cardNote(event.call.name, baseUrl, delivery.sessionId)}`);
        finish('stop');
      } else if (event.type === 'turn-end' && event.turnId === turnId) {
        if (!text.trim()) {
          const loud = event.messages.find((message) => message.tag === 'ED_agent')?.content ?? '';
          if (loud) say(loud);
          else if (event.error) say(`[The mind could not answer: ${event.error}]`);
        }
        finish('stop');
      } else if (event.type === 'turn-end' && turnId === null && delivery.resent) {
        // A retry that came while its turn ran (its start was before this call): answered once that turn is stored.
        void answerOf(delivery).then((answered) => answered !== null && (say(answered), finish('stop')));
      }
    });
    // Answered already (a resend whose turn ended before this call came): the stored reply.
    if (delivery.resent) void answerOf(delivery).then((answered) => answered !== null && (say(answered), finish('stop')));
  });
}

/** What a door says when a card waits: where to decide it, and that the rest comes in the session. */
function cardNote(tool: string, baseUrl: string, sessionId: string): string {
  return `[${tool} waits for a person's approval: ${baseUrl}/sessions/${sessionId}. The rest of this answer comes in the session once it is decided.]`;
}

/** The name of a tool whose card waits in the delivery's conversation, if one does (a turn waiting on it holds the next ones). */
const cardWaiting = (delivery: Delivery) => waitingCardTool(delivery.sessionId);

/** The agent's reply stored for the turn that answered this message, or null while it is not there. */
const answerOf = (delivery: Delivery) => replyToMessage({ sessionId: delivery.sessionId, messageId: delivery.messageId });
