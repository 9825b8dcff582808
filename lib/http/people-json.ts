// People as the REST answers show them (ARCHITECTURE §21), and what may be asked of them.
import { z } from 'zod';
import { quietHoursSchema } from '@/lib/config/quiet-hours';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { withoutNul } from '@/lib/config/text-schema';
import { mayList } from '@/lib/people/rights';
import { personRightsSchema } from '@/lib/people/tool-traits';
import { deliveryAddress } from '@/lib/channels/channel-identity';
import { listApiKeys } from '@/lib/store/api-keys-repository';
import { listBindings, waitingOutbox } from '@/lib/store/channels-repository';
import { passkeysOf, webSessionsOf } from '@/lib/store/web-auth-repository';
import { dailyMessageLimit, memoriesOfPerson, messagesToday, PERSON_ROLES, sessionsOfPerson, type PersonRecord } from '@/lib/store/people-repository';
import { personSpending } from '@/lib/store/spending-repository';

export const personLimitsSchema = z
  .object({
    messages_per_day: z.number().int().min(0).max(100_000).optional(),
    spend_usd_per_day: z.number().min(0).max(10_000).optional(),
    quiet_hours: quietHoursSchema.optional(),
    /** The personas the owner gives them to start conversations with (a guest has no others). */
    personas: z.array(personaNameSchema).max(100).optional(),
  })
  .strict();

export const personParamsSchema = z.object({ id: z.string().min(1).max(300) }).strict();

export const createPersonSchema = z
  .object({
    name: withoutNul(z.string().trim().min(1, 'name must not be empty').max(200)),
    role: z.enum(['trusted', 'guest']).default('guest'),
    limits: personLimitsSchema.nullable().default(null),
  })
  .strict();

export const patchPersonSchema = z
  .object({
    name: withoutNul(z.string().trim().min(1).max(200)).optional(),
    role: z.enum(PERSON_ROLES).optional(),
    limits: personLimitsSchema.nullable().optional(),
    /** The owner's changes to the role's tool traits (issue 58): widened (allow) or narrowed (deny); null: the role's. */
    rights: personRightsSchema.nullable().optional(),
  })
  .strict();

export const mergeIdentitiesSchema = z.object({ merge_from: z.string().min(1).max(300) }).strict();

export function personJson(person: PersonRecord) {
  return {
    id: person.id,
    name: person.name,
    role: person.role,
    limits: person.limits,
    rights: person.rights,
    may: mayList(person),
    identities: person.identities.map((identity) => ({ id: identity.id, kind: identity.kind, sender: identity.name, created_at: identity.createdAt.toISOString() })),
    created_at: person.createdAt.toISOString(),
  };
}

/** GET /api/people/:id (ARCHITECTURE §26): the person, their sessions, keys, memories, today's spend and messages, what they may. */
export async function personDetail(person: PersonRecord, now: Date) {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [sessions, keys, memories, spent, messages, waiting, passkeys, browsers] = await Promise.all([
    sessionsOfPerson(person.id),
    listApiKeys(),
    memoriesOfPerson(person.id),
    personSpending({ personId: person.id, since: midnight }),
    messagesToday(person.id, now),
    listBindings({ personId: person.id }).then((bindings) => waitingOutbox(bindings.map((binding) => ({ channelId: binding.channelId, address: deliveryAddress(binding) })), now)),
    passkeysOf(person.id),
    webSessionsOf(person.id),
  ]);
  const live = browsers.filter((browser) => browser.expiresAt > now);
  return {
    person: personJson(person),
    sessions: sessions.map((session) => ({ id: session.id, name: session.name, persona: session.persona, status: session.status, last_activity_at: session.lastActivityAt.toISOString() })),
    keys: keys.filter((key) => key.personId === person.id && !key.revokedAt).map((key) => ({ id: key.id, name: key.name, personas: key.personas, last_used_at: key.lastUsedAt?.toISOString() ?? null })),
    memories,
    spent_today: Math.round(spent * 1e6) / 1e6,
    messages_today: { sent: messages, limit: dailyMessageLimit(person) },
    /** The agent's words waiting to reach their chats (their quiet hours, or a chat's). */
    waiting: { messages: waiting.count, until: waiting.until?.toISOString() ?? null },
    /** Their web access (issue 75 §6): passkeys, the browsers signed in as them, the last sign-in. */
    web: {
      passkeys: passkeys.map((key) => ({ name: key.name, created_at: key.createdAt.toISOString(), last_used_at: key.lastUsedAt?.toISOString() ?? null })),
      browsers: live.map((browser) => ({ user_agent: browser.userAgent, signed_in_at: browser.createdAt.toISOString(), last_seen_at: browser.lastSeenAt.toISOString() })),
      last_sign_in: live.reduce<Date | null>((latest, browser) => (latest && latest > browser.createdAt ? latest : browser.createdAt), null)?.toISOString() ?? null,
    },
    may: mayList(person),
  };
}
