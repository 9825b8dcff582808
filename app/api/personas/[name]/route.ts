import { validationError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { deletePersona, readPersona, updatePersona, type PersonaFile } from '@/lib/personas/persona-files';
import { personaParamsSchema, updatePersonaBodySchema } from './schema';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ name: string }> };

async function personaName(context: Context): Promise<string> {
  const result = personaParamsSchema.safeParse(await context.params);
  if (!result.success) throw validationError(result.error, 'persona name');
  return result.data.name;
}

function personaJson(persona: PersonaFile) {
  return { name: persona.name, content: persona.content, hash: persona.hash, size: persona.size, updated_at: persona.updatedAt.toISOString() };
}

export const GET = handle(async (_request, context: Context) => {
  return Response.json({ persona: personaJson(readPersona(await personaName(context))) });
});

export const PUT = handle(async (request, context: Context) => {
  const name = await personaName(context);
  const body = await readJsonBody(request, updatePersonaBodySchema);
  return Response.json({ persona: personaJson(updatePersona({ name, content: body.content })) });
});

export const DELETE = handle(async (_request, context: Context) => {
  const name = await personaName(context);
  deletePersona({ name });
  return new Response(null, { status: 204 });
});

