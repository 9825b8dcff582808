// Whose conversation a chat is (issue 42, ARCHITECTURE §21). A binding points at a person; a
// persona binding means that person's own session of the persona (opened by their first message),
// never the persona's latest session of anyone. Who may decide a card is the person's role, read
// on the server at each decision: the owner any card sent to their chat, a trusted person the cards
// of their own conversations, a guest none (their cards go to the owner).
import { spentAllowance } from '@/lib/mind/allowance-guard';
import { findPerson, messagesLeftToday, OWNER_ID, personalSession, sessionPeople, type PersonRecord } from '@/lib/store/people-repository';
import type { BindingRecord } from '@/lib/store/channels-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { ChannelHost } from './channel-types';
import { isWeakIdentity, WEAK_IDENTITY_REASON } from './channel-identity';

/** The session a binding talks to now: its own, or its person's latest active one of the persona. */
export async function boundSession(host: ChannelHost, binding: BindingRecord): Promise<SessionRecord | null> {
  if (binding.sessionId) return host.findSession(binding.sessionId);
  if (!binding.persona || !binding.personId) return null;
  const id = await personalSession({ personId: binding.personId, persona: binding.persona, status: 'active' });
  return id ? host.findSession(id) : null;
}

/** A persona binding's person's latest paused session of the persona (what /resume wakes). */
export async function restingSession(host: ChannelHost, binding: BindingRecord): Promise<SessionRecord | null> {
  if (binding.sessionId || !binding.persona || !binding.personId) return null;
  const id = await personalSession({ personId: binding.personId, persona: binding.persona, status: 'paused' });
  return id ? host.findSession(id) : null;
}

/** The person's own new session of a persona. */
export function openPersonalSession(host: ChannelHost, binding: BindingRecord, persona: string): Promise<SessionRecord> {
  return host.createSession(persona, binding.personId ? [binding.personId] : []);
}

/** Why this chat may not decide a card of `sessionId`, or null when it may. */
export async function cardRefusal(binding: BindingRecord, sessionId: string, ownerOnly = false): Promise<string | null> {
  if (isWeakIdentity(binding.sender)) return `it is decided on the page: ${WEAK_IDENTITY_REASON}`;
  const person = binding.personId ? await findPerson(binding.personId) : null;
  if (!person) return 'it is decided on the page: this chat is not a known person';
  if (person.role === 'owner') return null;
  if (ownerOnly) return 'only the owner decides what is shared with everyone';
  if (person.role === 'guest') return 'a guest does not decide cards: the owner does, on the page or their own chat';
  return (await sessionPeople(sessionId)).includes(person.id) ? null : 'it belongs to a conversation that is not yours';
}

/** Who a card of this session goes to: its trusted people's chats, and always the owner's (only the owner's for an owner-only card). */
export async function cardRecipients(sessionId: string, ownerOnly = false): Promise<Set<string>> {
  const allowed = new Set<string>([OWNER_ID]);
  if (ownerOnly) return allowed;
  const people = await sessionPeople(sessionId);
  for (const id of people) {
    const person: PersonRecord | null = await findPerson(id);
    if (person && person.role !== 'guest') allowed.add(id);
  }
  return allowed;
}

/**
 * In a session shared on purpose by people of several chats, each message says who wrote it
 * ("Alice: …"); its inbound row records the person too. (A chat bound to the owner's own session
 * is the owner's conversation continued: no name is added.)
 */
export async function authored(binding: BindingRecord, sessionId: string, text: string): Promise<string> {
  if (!binding.personId || (await sessionPeople(sessionId)).filter((id) => id !== OWNER_ID).length < 2) return text;
  const person = await findPerson(binding.personId);
  return person ? `${person.name}: ${text}` : text;
}

/** A polite refusal when the person has no messages left today (issue 42 §6), or null. */
export async function allowanceRefusal(personId: string | null, now: Date): Promise<string | null> {
  if (!personId) return null;
  const allowance = await messagesLeftToday(personId, now);
  if (!allowance || allowance.left > 0) return null;
  return `Sorry — that is today's ${allowance.limit} messages with this assistant. It will be glad to talk again tomorrow (UTC); the owner can raise the limit on the People page.`;
}

/**
 * The short fixed reply when the day's allowance of the conversation is spent (issue 48): no model
 * is called for it; the person hears when it renews.
 */
export async function spentRefusal(sessionId: string, now: Date): Promise<string | null> {
  const spent = await spentAllowance(sessionId, now);
  return spent ? `Sorry — today's allowance for this assistant is used up. It renews at midnight (${spent.timeZone}); the owner can raise it in Settings.` : null;
}
