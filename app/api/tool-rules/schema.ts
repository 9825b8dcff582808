import { z } from 'zod';
import { ruleMatcherSchema, toolName } from '@/lib/config/rule-matcher';
import { personaNameSchema } from '@/lib/personas/persona-name';

export { ruleMatcherSchema };

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
