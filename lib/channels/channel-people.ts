// Whose conversation a chat is (issue 42, ARCHITECTURE §21). A binding points at a person; a
// persona binding means that person's own session of the persona (opened by their first message),
// never the persona's latest session of anyone. Who may decide a card, who gets it, how many
// messages a person has left: the rights authority (lib/people/rights.ts) answers, at each message.
import { deliverMessage, spend, type Actor, type Via } from '@/lib/people/rights';
import { startSessionWith } from '@/lib/people/web-reach';
import { findPerson, OWNER_ID, personalSession, sessionPeople } from '@/lib/store/people-repository';
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

/** The person's own new session of a persona, named by its person and where they talk ("iris · Alice, Telegram"). */
export async function openPersonalSession(host: ChannelHost, binding: BindingRecord, persona: string): Promise<SessionRecord> {
  const person = binding.personId ? await findPerson(binding.personId) : null;
  // The authority decides, as on the web: a guest opens sessions only of the personas the owner gave them.
  const may = person ? await startSessionWith(person, persona) : { verdict: 'allow' as const };
  if (may.verdict === 'refuse') throw new SessionRefusedError(may.reason);
  const kind = binding.sender.slice(0, Math.max(0, binding.sender.indexOf(':')));
  const where = CHANNEL_WORDS[kind] ?? kind;
  return host.createSession(persona, person ? [person.id] : [], `${persona} · ${person?.name ?? binding.senderName}${where ? `, ${where}` : ''}`.slice(0, 200));
}

const CHANNEL_WORDS: Record<string, string> = { telegram: 'Telegram', discord: 'Discord', irc: 'IRC', email: 'email', slack: 'Slack' };

/** A session the rights authority would not open for this chat's person. */
export class SessionRefusedError extends Error {
  override name = 'SessionRefusedError';
}

/** The chat's person as the rights authority reads them: on this channel's kind, weak when anyone could wear the identity. */
export async function chatActor(binding: BindingRecord, via: Via): Promise<Actor> {
  return { person: binding.personId ? await findPerson(binding.personId) : null, via, ...(isWeakIdentity(binding.sender) && { weakIdentity: WEAK_IDENTITY_REASON }) };
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

/** A polite refusal when the person has no messages left today (the rights authority takes one), or null. */
export async function allowanceRefusal(personId: string | null, now: Date): Promise<string | null> {
  const answer = await deliverMessage(personId ? await findPerson(personId) : null, now);
  return answer.verdict === 'refuse' ? answer.reason : null;
}

/**
 * The short fixed reply when the day's allowance of the conversation is spent (issue 48): no model
 * is called for it; the person hears when it renews.
 */
export async function spentRefusal(sessionId: string, now: Date): Promise<string | null> {
  const answer = await spend(sessionId, now);
  return answer.verdict === 'refuse' ? answer.reason : null;
}
