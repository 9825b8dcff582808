// What the mind says, pushed to the chats bound to its session (issue 28): the answer to a message
// that came from a chat always goes back to it; beyond that each binding chooses — `all` (everything
// the agent says), `spontaneous` (speech on its own, task results, questions, cards) or `cards`
// (approval cards and task questions only). Quiet hours — the chat's and its person's — hold pushes
// until they end; an answer the person asked for and a card are never held. Every push is a row of
// the outbox before anything is sent.
import { cardDeciders } from '@/lib/people/rights';
import { memoryCardLine } from '@/lib/memory/memory-owner';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { longestQuiet } from '@/lib/config/quiet-hours';
import { enqueueOutbox, listBindings, type BindingRecord, type OutboxPayload } from '@/lib/store/channels-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import { findPerson, OWNER_ID, sessionPeople, type PersonRecord } from '@/lib/store/people-repository';
import { deliveryAddress, isWeakIdentity, WEAK_IDENTITY_REASON } from './channel-identity';

/** The events a push can come from (the rest never reach pushEvent). */
export const PUSHED_EVENTS: ReadonlySet<OrchestratorEvent['type']> = new Set(['turn-start', 'turn-end', 'tool-call', 'task.completed', 'task.failed', 'task.blocked', 'allowance.notice']);

type Kind = 'answer' | 'speech' | 'spontaneous' | 'task' | 'question' | 'card';

/** Whether a binding's push mode takes this kind of message (answers to its own messages always go). */
export function pushes(binding: Pick<BindingRecord, 'push'>, kind: Kind): boolean {
  if (kind === 'answer' || kind === 'card' || kind === 'question') return true;
  if (binding.push === 'all') return true;
  return binding.push === 'spontaneous' && (kind === 'spontaneous' || kind === 'task');
}

async function describeArgs(name: string, args: Record<string, unknown>): Promise<string> {
  // A memory to forget is named with whose it is (issue 58 §5), not a bare number.
  const memory = name === 'forget_memory' && typeof args.id === 'number' ? await memoryCardLine(args.id) : null;
  if (memory) return `The agent wants to forget ${memory}${typeof args.reason === 'string' ? `\n(${args.reason})` : ''}`;
  const shown = typeof args.command === 'string' ? args.command : typeof args.code === 'string' ? args.code : JSON.stringify(args, null, 2);
  const text = shown.length > 3_000 ? `${shown.slice(0, 3_000)}\n… (${shown.length - 3_000} more characters on the page)` : shown;
  return `The agent wants to run ${name}:\n\`\`\`\n${text}\n\`\`\``;
}

function weakCardNotice(event: OrchestratorEvent): OutboxPayload {
  const name = event.type === 'tool-call' ? event.call.name : 'a tool';
  return { text: `A card waits for your decision on the page: the agent asks to run ${name}. It is not shown or decided here: ${WEAK_IDENTITY_REASON}.` };
}

export interface OutboundContext {
  /** The session behind an event (its persona decides persona bindings). */
  session(sessionId: string): Promise<SessionRecord | null>;
  /** Whether the binding talks to this session now (a persona binding: its latest active session). */
  talksTo(binding: BindingRecord, session: SessionRecord): Promise<boolean>;
  /** Bindings whose messages the turn answered (they sent them from their chat); `spoken`: those that sent a voice note. */
  takeAnswerTargets(sessionId: string, turnId: string): Promise<{ bindings: string[]; spoken: string[] }>;
  noteTurnStart(sessionId: string, turnId: string, answering: number[]): void;
  channelRunsHere(channelId: string): boolean;
  wake(channelId: string): void;
  now(): Date;
}

/** The outbox rows one event makes (none for most events). */
export async function pushEvent(context: OutboundContext, event: OrchestratorEvent): Promise<number> {
  let kind: Kind;
  let payload: OutboxPayload;
  let answerTo: string[] = [];
  let spokenBy: string[] = [];
  // A specialist's task shown in its parent's session (lib/orchestrator/delegation-host.ts): the
  // parent's own events say what the person needs (its task blocked with the question). Its cards
  // do reach the parent's chat: they wait for the person like the parent's own.
  if ('task' in event && event.task.session_id !== event.sessionId) return 0;
  switch (event.type) {
    case 'allowance.notice':
      return pushToOwner(context, `Spending: ${event.message}`);
    case 'turn-start':
      context.noteTurnStart(event.sessionId, event.turnId, event.answering);
      return 0;
    case 'turn-end': {
      ({ bindings: answerTo, spoken: spokenBy } = await context.takeAnswerTargets(event.sessionId, event.turnId));
      const text = event.messages.filter((message) => message.tag === 'ED_agent').map((message) => message.content).join('\n\n').trim();
      if (!text) return 0;
      kind = event.spontaneous ? 'spontaneous' : event.taskId ? 'task' : 'speech';
      payload = { text };
      break;
    }
    case 'tool-call': {
      if (event.call.status !== 'awaiting_approval') return 0;
      kind = 'card';
      const card = { callId: event.call.id, sessionId: event.sessionId, argsHash: event.call.args_hash, ...(event.call.owner_only && { ownerOnly: true }) };
      const text = await describeArgs(event.call.name, event.call.args ?? {});
      if (event.call.session_id === event.sessionId) payload = { text, card };
      else payload = { text: `A specialist asks: ${text}`, card: { ...card, callSessionId: event.call.session_id } };
      break;
    }
    case 'task.completed':
    case 'task.failed':
      kind = 'task';
      payload = { text: `Task ${event.type === 'task.completed' ? 'finished' : 'failed'}: ${event.task.goal}\n\n${event.task.result ?? event.task.error ?? ''}`.trim() };
      break;
    case 'task.blocked':
      if (event.task.blocked_on?.kind !== 'question') return 0;
      kind = 'question';
      payload = { text: `The task "${event.task.goal}" asks: ${event.task.blocked_on.question}\n(Reply to this message to answer.)`, question: { taskId: event.task.id, sessionId: event.sessionId } };
      break;
    default:
      return 0;
  }
  const session = await context.session(event.sessionId);
  if (!session) return 0;
  // Only the people of the session the words belong to (issue 42) — and a card only to those who
  // may decide it: its trusted people and the owner, wherever the owner's chats are bound.
  const people = new Set(await sessionPeople(session.id));
  const deciders = kind === 'card' && payload.card ? await cardDeciders({ sessionId: payload.card.callSessionId ?? session.id, ownerOnly: payload.card.ownerOnly === true }) : null;
  const own = [...(await listBindings({ sessionId: session.id })), ...(await listBindings({ persona: session.personaName, sessionId: null }))].filter((binding) => binding.personId && people.has(binding.personId));
  const owners = deciders ? (await listBindings({ personId: OWNER_ID })).filter((binding) => !own.some((known) => known.id === binding.id)) : [];
  const candidates = [...own, ...owners];
  const records = new Map<string, Promise<PersonRecord | null>>();
  const personOf = (id: string) => records.get(id) ?? records.set(id, findPerson(id)).get(id)!;
  let queued = 0;
  for (const binding of candidates) {
    if (!context.channelRunsHere(binding.channelId)) continue;
    const asked = answerTo.includes(binding.id);
    const effective: Kind = asked ? 'answer' : kind;
    if (!pushes(binding, effective)) continue;
    const ownersElsewhere = owners.includes(binding);
    if (!asked && !ownersElsewhere && !binding.sessionId && !(await context.talksTo(binding, session))) continue;
    if (deciders && !deciders.has(binding.personId!)) {
      // A guest's own card: they hear that the owner decides it, never what it holds.
      await enqueueOutbox({ channelId: binding.channelId, address: deliveryAddress(binding), payload: { text: 'That needs the owner’s approval: they have been asked.' } });
      queued++;
      context.wake(binding.channelId);
      continue;
    }
    // Quiet hours — the chat's and its person's — hold words, never an answer asked for or a card.
    const wait = effective === 'answer' || effective === 'card' ? 0 : longestQuiet([binding.quietHours, binding.personId ? (await personOf(binding.personId))?.limits?.quiet_hours : null], context.now());
    // A weak identity (IRC without an account) hears that a card waits, never what it holds; a voice
    // note is answered by voice too where the person asked for it (/voice on, issue 76 §4).
    const sent = payload.card && isWeakIdentity(binding.sender) ? weakCardNotice(event) : asked && binding.voiceReplies && spokenBy.includes(binding.id) ? { ...payload, voice: { sessionId: session.id } } : payload;
    await enqueueOutbox({ channelId: binding.channelId, address: deliveryAddress(binding), payload: sent, ...(wait > 0 && { nextAt: new Date(context.now().getTime() + wait * 60_000) }) });
    queued++;
    context.wake(binding.channelId);
  }
  return queued;
}

/** A word for the owner alone (an allowance's 80% notice, issue 48; a failed backup): to each of the owner's chats, once. */
export async function pushToOwner(context: OutboundContext, text: string): Promise<number> {
  let queued = 0;
  for (const binding of await listBindings({ personId: OWNER_ID })) {
    if (!context.channelRunsHere(binding.channelId)) continue;
    await enqueueOutbox({ channelId: binding.channelId, address: deliveryAddress(binding), payload: { text } });
    queued++;
    context.wake(binding.channelId);
  }
  return queued;
}
