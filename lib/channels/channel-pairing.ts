// Approving a pairing code on the Channels page (issue 28): the code must be this channel's,
// unexpired and unused — approved once, by compare-and-set — and becomes a binding of that sender
// to a session or to a persona. The sender is told, through the outbox.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { approvePairing, enqueueOutbox, saveBinding, type BindingRecord } from '@/lib/store/channels-repository';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { timeZoneSchema } from '@/lib/config/time-zone';
import { addSessionPeople, personForSender } from '@/lib/store/people-repository';
import { isWeakIdentity } from './channel-identity';

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'times are HH:MM');

export const quietHoursSchema = z
  .object({
    from: clock,
    to: clock,
    time_zone: timeZoneSchema,
  })
  .strict();

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
  })
  .strict()
  .refine((value) => (value.session_id === undefined) !== (value.persona === undefined), 'bind to a session_id or to a persona, one of the two');
export type ApprovePairingInput = z.infer<typeof approvePairingSchema>;

export const bindingPatchSchema = z.object({ push: pushSchema.optional(), quiet_hours: quietHoursSchema.nullable().optional() }).strict();

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
    created_at: binding.createdAt.toISOString(),
  };
}

/** The binding the code makes, or null for a code that is unknown here, expired or already used. */
export async function approveAndBind(channelId: string, input: ApprovePairingInput, now = new Date()): Promise<BindingRecord | null> {
  const code = input.code.includes('-') ? input.code : `${input.code.slice(0, 4)}-${input.code.slice(4)}`;
  const pairing = await approvePairing(channelId, code, now);
  if (!pairing) return null;
  // The sender is a person (the same one on every channel where that identity was paired).
  const person = await personForSender({ sender: pairing.sender, name: pairing.senderName, role: input.role });
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
