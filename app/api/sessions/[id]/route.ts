import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { sessionJson } from '@/lib/http/session-json';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { loadUsageTotals } from '@/lib/store/mind-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { findPerson, sessionPeople } from '@/lib/store/people-repository';
import { visitorOf } from '@/lib/http/web-visitor';
import { seeWords } from '@/lib/people/web-reach';
import { sessionParamsSchema, updateSessionBodySchema } from './schema';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

export const GET = handle(async (request, context: Context) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const session = await findSession({ id });
  if (!session) throw new ApiError('not_found', `Session ${id} does not exist`);
  // Whose conversation it is (issue 42): the page says who is in a shared one.
  const people = (await Promise.all((await sessionPeople(id)).map((personId) => findPerson(personId)))).flatMap((person) => (person ? [{ id: person.id, name: person.name, role: person.role }] : []));
  // Its words kept from the owner (issue 61 §6): the page shows that it exists, its cost and its cards.
  const { person } = await visitorOf(request);
  const wordsPrivate = person !== null && (await seeWords(person, id)).verdict === 'refuse';
  return Response.json({ session: sessionJson(session), mind: getOrchestrator().mindState(id), usage: await loadUsageTotals({ sessionId: id }), people, words_private: wordsPrivate });
});

export const PATCH = handle(async (request, context: Context) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const body = await readJsonBody(request, updateSessionBodySchema);
  const session = await getOrchestrator().updateSession(id, body);
  return Response.json({ session: sessionJson(session) });
});

export const DELETE = handle(async (_request, context: Context) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await getOrchestrator().deleteSession(id);
  return new Response(null, { status: 204 });
});
