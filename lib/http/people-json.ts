// People as the REST answers show them (ARCHITECTURE §21), and what may be asked of them.
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { PERSON_ROLES, type PersonRecord } from '@/lib/store/people-repository';

export const personLimitsSchema = z
  .object({
    messages_per_day: z.number().int().min(0).max(100_000).optional(),
    spend_usd_per_day: z.number().min(0).max(10_000).optional(),
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
  })
  .strict();

export const mergeIdentitiesSchema = z.object({ merge_from: z.string().min(1).max(300) }).strict();

export function personJson(person: PersonRecord) {
  return {
    id: person.id,
    name: person.name,
    role: person.role,
    limits: person.limits,
    identities: person.identities.map((identity) => ({ id: identity.id, kind: identity.kind, sender: identity.name, created_at: identity.createdAt.toISOString() })),
    created_at: person.createdAt.toISOString(),
  };
}
