// Approving a pairing code on the Channels page (issue 28): the code must be this channel's,
// unexpired and unused — approved once, by compare-and-set — and becomes a binding of that sender
// to a session or to a persona. The sender is told, through the outbox.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { approvePairing, enqueueOutbox, listOpenPairings, saveBinding, type BindingRecord } from '@/lib/store/channels-repository';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { quietHoursSchema } from '@/lib/config/quiet-hours';
import { addIdentity, addSessionPeople, findPerson, findPersonBySender, personForSender, sessionPeople } from '@/lib/store/people-repository';
import { isWeakIdentity } from './channel-identity';
import { personLabel } from '@/lib/people/rights';

export const pushSchema = z.enum(['all', 'spontaneous', 'cards']);

export const approvePairingSchema = z
  .object({
    code: z.string().trim().toUpperCase().regex(/^[A-Z0-9]{4}-?[A-Z0-9]{4}$/, 'a pairing code looks like K7Q2-MX9P'),
    session_id: z.string().uuid().optional(),
    persona: personaNameSchema.optional(),
    push: pushSchema.default('all'),
    quiet_hours: quietHoursSchema.nullable().default(null),
    /** The role of a sender paired for the first time (issue 42): a guest unless the owner says trusted. */
    role: z.enum(['trusted', 'guest']).default('guest'),
    /** Who this is, when the owner says it is someone already on the People page (issue 58 §6); absent: a new person. */
    person_id: z.string().min(1).max(300).optional(),
    /** Binding into a session that holds other people shares their conversation: said on purpose, never by default. */
    share: z.boolean().default(false),
  })
  .strict()
  .refine((value) => (value.session_id === undefined) !== (value.persona === undefined), 'bind to a session_id or to a persona, one of the two');
export type ApprovePairingInput = z.infer<typeof approvePairingSchema>;

export const bindingPatchSchema = z.object({ push: pushSchema.optional(), quiet_hours: quietHoursSchema.nullable().optional(), voice_replies: z.boolean().optional() }).strict();

export function bindingJson(binding: BindingRecord) {
  return {
    id: binding.id,
    channel_id: binding.channelId,
    sender: binding.senderName,
    /** An IRC identity without an account: it converses, cards are decided on the page (issue 41 §2). */
    weak: isWeakIdentity(binding.sender),
    person_id: binding.personId,
    session_id: binding.sessionId,
    persona: binding.persona,
    push: binding.push,
    quiet_hours: binding.quietHours,
    voice_replies: binding.voiceReplies,
    created_at: binding.createdAt.toISOString(),
  };
}

/** A pairing the owner's form must say more about (who is in the session it would share), or a person that is not there. */
export class PairingError extends Error {
  override readonly name = 'PairingError';
  constructor(
    readonly code: 'conflict' | 'not_found' | 'validation',
    message: string,
  ) {
    super(message);
  }
}

/** Who is in a session already, by name ("the owner", "Alice"), the person being paired aside. */
export async function peopleInSession(sessionId: string, except: string | null = null): Promise<string[]> {
  const names: string[] = [];
  for (const id of await sessionPeople(sessionId)) {
    if (id === except) continue;
    const person = await findPerson(id);
    if (person) names.push(personLabel(person));
  }
  return names;
}

/**
 * The binding the code makes, or null for a code that is unknown here, expired or already used.
 * The safe thing is the default (issue 58 §6): the sender becomes a new person (or one the owner
 * names) talking in their own conversation of a persona; a session that has other people is
 * shared only when `share` says so — refused before the code is used, with who is in it.
 */
export async function approveAndBind(channelId: string, input: ApprovePairingInput, now = new Date()): Promise<BindingRecord | null> {
  const code = input.code.includes('-') ? input.code : `${input.code.slice(0, 4)}-${input.code.slice(4)}`;
  const waiting = (await listOpenPairings(channelId, now)).find((open) => open.code === code);
  if (!waiting) return null;
  const named = input.person_id ? await findPerson(input.person_id) : null;
  if (input.person_id && !named) throw new PairingError('not_found', `No person ${input.person_id}`);
  const known = await findPersonBySender(waiting.sender);
  if (named && known && known.id !== named.id) throw new PairingError('conflict', `This identity is already ${known.name}'s: merge the two on the People page instead`);
  if (input.session_id) {
    const others = await peopleInSession(input.session_id, named?.id ?? known?.id ?? null);
    if (others.length > 0 && !input.share) {
      throw new PairingError('conflict', `That session is the conversation of ${others.join(' and ')}: binding ${waiting.senderName} there lets them read it and be answered in it. Bind them to their own conversation of a persona, or share this one on purpose (share: true).`);
    }
  }
  const pairing = await approvePairing(channelId, code, now);
  if (!pairing) return null;
  // The sender is a person (the same one on every channel where that identity was paired).
  const person = named ? await addIdentity({ personId: named.id, sender: pairing.sender, name: pairing.senderName }) : await personForSender({ sender: pairing.sender, name: pairing.senderName, role: input.role });
  if (input.session_id) await addSessionPeople(input.session_id, [person.id]); // shared on purpose: they are in it
  const binding = await saveBinding({
    id: randomUUID(),
    channelId,
    sender: pairing.sender,
    senderName: pairing.senderName,
    address: pairing.address,
    sessionId: input.session_id ?? null,
    persona: input.persona ?? null,
    push: input.push,
    quietHours: input.quiet_hours,
    personId: person.id,
  });
  await enqueueOutbox({ channelId, address: pairing.address, payload: { text: 'Paired. Write here to talk to the agent; /status, /pause, /resume, /stop and /new <persona> steer it.' } });
  return binding;
}
