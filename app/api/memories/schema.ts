import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { MEMORY_KINDS } from '@/lib/memory/memory-store';
import { personaNameSchema } from '@/lib/personas/persona-name';

export const memoriesQuerySchema = z
  .object({
    persona: personaNameSchema.optional(),
    scope: z.enum(['short', 'long']).optional(),
    kind: z.enum(MEMORY_KINDS).optional(),
    session_id: z.string().uuid().optional(),
    /** Search with the agent's own recall (memories only). */
    q: z.string().trim().min(1).max(1_000).optional(),
    history: z.enum(['0', '1']).optional(),
    /** Only memories from this person's conversations (issue 42; the owner's view of everyone's). */
    person: z.string().trim().min(1).max(300).optional(),
  })
  .strict();

export const createMemoryBodySchema = z
  .object({
    persona: personaNameSchema,
    content: withoutNul(z.string().trim().min(1, 'content must not be empty').max(2_000, 'content must be at most 2,000 characters')),
    kind: z.enum(MEMORY_KINDS).default('fact'),
    scope: z.enum(['short', 'long']).default('long'),
    importance: z.number().min(0).max(1).optional(),
    pinned: z.boolean().optional(),
    /** The fact this one replaces (kept as its history). */
    supersedes: z.number().int().positive().optional(),
  })
  .strict();

export const updateMemoryBodySchema = z
  .object({
    content: withoutNul(z.string().trim().min(1).max(2_000)).optional(),
    pinned: z.boolean().optional(),
    importance: z.number().min(0).max(1).optional(),
    /** Readable in every conversation of the persona, or private again to its conversation's people (issue 42). */
    shared: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');

export const memoryParamsSchema = z.object({ id: z.string().regex(/^[1-9]\d{0,15}$/, 'memory id must be a positive integer').transform(Number) }).strict();

export const recallQuerySchema = z
  .object({ q: z.string().trim().min(1, 'q must not be empty').max(1_000), k: z.coerce.number().int().min(1).max(50).default(10) })
  .strict();
