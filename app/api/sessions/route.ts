import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { handle, parseSearchParams, readJsonBody } from '@/lib/http/route-helpers';
import { sessionJson } from '@/lib/http/session-json';
import { listSessions } from '@/lib/store/sessions-repository';
import { peopleOfSessions } from '@/lib/store/people-repository';
import { createSessionBodySchema, listSessionsQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request) => {
  const query = parseSearchParams(request, listSessionsQuerySchema);
  const { sessions, total } = await listSessions({ search: query.search, page: query.page, pageSize: query.page_size });
  // Who is in each (issue 58 §6): the list says whose conversation a session is.
  const people = await peopleOfSessions(sessions.map((session) => session.id));
  return Response.json({ sessions: sessions.map((session) => ({ ...sessionJson(session), people: people.get(session.id) ?? [] })), total, page: query.page, page_size: query.page_size });
});

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, createSessionBodySchema);
  const session = await getOrchestrator().createSession(body);
  return Response.json({ session: sessionJson(session) }, { status: 201 });
});
