import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createPersona, listPersonas } from '@/lib/personas/persona-files';
import { visitorOf } from '@/lib/http/web-visitor';
import { personasFor } from '@/lib/people/web-reach';
import { createPersonaBodySchema } from './schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request) => {
  // A signed-in person sees the personas they may start a session with, by name (issue 61 §3).
  const visitor = await visitorOf(request);
  const listed = listPersonas();
  const allowed = visitor.owner || !visitor.person ? null : new Set(await personasFor(visitor.person, listed.map((persona) => persona.name)));
  const personas = listed.filter((persona) => !allowed || allowed.has(persona.name)).map((persona) => ({
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
