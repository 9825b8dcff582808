import { z } from 'zod';
import { personaNameSchema } from '@/lib/personas/persona-name';

const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name');

export const ruleMatcherSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tool') }).strict(),
  z.object({ kind: z.literal('command'), argv: z.array(z.string().min(1).max(1_000)).min(1).max(100) }).strict(),
  z.object({ kind: z.literal('command-prefix'), argv: z.array(z.string().min(1).max(1_000)).min(1).max(100) }).strict(),
  z.object({ kind: z.literal('code'), code: z.string().min(1).max(100_000) }).strict(),
  z.object({ kind: z.literal('path-glob'), glob: z.string().min(1).max(1_000).refine((glob) => !glob.startsWith('/') && !glob.split('/').includes('..'), 'a glob inside the workspace (no leading /, no ..)') }).strict(),
]);

export const createRuleBodySchema = z
  .object({
    scope: z.enum(['session', 'persona']),
    session_id: z.string().uuid().optional(),
    persona: personaNameSchema.optional(),
    tool: toolName,
    effect: z.enum(['allow', 'deny']),
    matcher: ruleMatcherSchema,
  })
  .strict()
  .refine((body) => (body.scope === 'session' ? body.session_id !== undefined : body.persona !== undefined), {
    message: 'a session rule needs session_id, a persona rule needs persona',
  });

export const rulesQuerySchema = z.object({ session_id: z.string().uuid().optional(), persona: personaNameSchema.optional() }).strict();

export const ruleParamsSchema = z.object({ id: z.string().uuid('rule id must be a UUID') });
