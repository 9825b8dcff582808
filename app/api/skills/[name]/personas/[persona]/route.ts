import { z } from 'zod';
import { skillNameSchema } from '@/lib/config/skill-name';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { setPersonaSkill } from '@/lib/http/skills-api';
import { personaNameSchema } from '@/lib/personas/persona-name';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ name: skillNameSchema, persona: personaNameSchema }).strict();
const bodySchema = z.object({ enabled: z.boolean() }).strict();

/** Gives a persona the skill, or takes it away (its graph's `skill` node); new sessions of the persona follow. */
export const PUT = handle(async (request, context: { params: Promise<{ name: string; persona: string }> }) => {
  const { name, persona } = parseParams(await context.params, paramsSchema);
  const { enabled } = await readJsonBody(request, bodySchema);
  return Response.json({ persona, skills: await setPersonaSkill(persona, name, enabled) });
});
