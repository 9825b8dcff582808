import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createPersona, listPersonas } from '@/lib/personas/persona-files';
import { createPersonaBodySchema } from './schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const personas = listPersonas().map((persona) => ({
    name: persona.name,
    size: persona.size,
    updated_at: persona.updatedAt.toISOString(),
  }));
  return Response.json({ personas });
});

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, createPersonaBodySchema);
  const persona = createPersona(body);
  return Response.json(
    { persona: { name: persona.name, content: persona.content, hash: persona.hash, updated_at: persona.updatedAt.toISOString() } },
    { status: 201 },
  );
});
