import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { handle, parseSearchParams, readJsonBody } from '@/lib/http/route-helpers';
import { sessionJson } from '@/lib/http/session-json';
import { listSessions } from '@/lib/store/sessions-repository';
import { peopleOfSessions } from '@/lib/store/people-repository';
import { ApiError } from '@/lib/http/api-error';
import { visitorOf } from '@/lib/http/web-visitor';
import { startSessionWith } from '@/lib/people/web-reach';
import { createSessionBodySchema, listSessionsQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request) => {
  const query = parseSearchParams(request, listSessionsQuerySchema);
  // A signed-in person lists their own sessions only (issue 61); the owner every one.
  const visitor = await visitorOf(request);
  const { sessions, total } = await listSessions({ search: query.search, page: query.page, pageSize: query.page_size, ...(!visitor.owner && visitor.person && { personId: visitor.person.id }) });
  // Who is in each (issue 58 §6): the list says whose conversation a session is.
  const people = await peopleOfSessions(sessions.map((session) => session.id));
  return Response.json({ sessions: sessions.map((session) => ({ ...sessionJson(session), people: people.get(session.id) ?? [] })), total, page: query.page, page_size: query.page_size });
});

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, createSessionBodySchema);
  const visitor = await visitorOf(request);
  if (visitor.person && !visitor.owner) {
    const may = await startSessionWith(visitor.person, body.persona);
    if (may.verdict !== 'allow') throw new ApiError('forbidden', `You cannot start this session: ${may.verdict === 'refuse' ? may.reason : 'ask the owner'}`);
  }
  // A person's session is theirs (the owner sees it too, as every session).
  // A person's session runs on the owner's defaults (models and parameters are the owner's to choose).
  const person = visitor.person && !visitor.owner ? visitor.person : null;
  const session = await getOrchestrator().createSession(person ? { persona: body.persona, ...(body.name && { name: body.name }) } : body, person ? { people: [person.id] } : {});
  return Response.json({ session: sessionJson(session) }, { status: 201 });
});
