import { z } from 'zod';
import { skillNameSchema } from '@/lib/config/skill-name';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, parseSearchParams } from '@/lib/http/route-helpers';
import { skillApiError, skillJson, skillScopeSchema, skillSource } from '@/lib/http/skills-api';
import { listSkills, skillBody } from '@/lib/skills/skill-files';
import { deleteSkill } from '@/lib/skills/skill-import';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ name: skillNameSchema }).strict();
type Context = { params: Promise<{ name: string }> };

/** One skill with its instructions (`?persona=` for a persona's own). */
export const GET = handle(async (request, context: Context) => {
  const { name } = parseParams(await context.params, paramsSchema);
  const source = skillSource(parseSearchParams(request, skillScopeSchema));
  const skill = listSkills(source.kind === 'persona' ? { persona: source.persona } : {}).skills.find((candidate) => candidate.name === name && candidate.source.kind === source.kind);
  if (!skill) throw new ApiError('not_found', `No skill ${name}`);
  return Response.json({ skill: { ...skillJson(skill), body: skillBody(skill) } });
});

/** Removes the skill's folder. Graphs that name it keep the node; it simply is not offered any more. */
export const DELETE = handle(async (request, context: Context) => {
  const { name } = parseParams(await context.params, paramsSchema);
  try {
    deleteSkill(name, skillSource(parseSearchParams(request, skillScopeSchema)));
  } catch (error) {
    throw skillApiError(error);
  }
  return new Response(null, { status: 204 });
});
