// A guest asks the owner for someone to talk to (issue 75 §4). POST by the guest: kept, and the
// owner's devices are notified; GET: the owner sees every open request, a person their own.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { signedInVisitor } from '@/lib/http/web-visitor';
import { askForPersonaRule } from '@/lib/people/web-reach';
import { listPeople, OWNER_ID } from '@/lib/store/people-repository';
import { askForPersona, personaRequestOf, personaRequests } from '@/lib/store/persona-requests';
import { pushToPerson } from '@/lib/web-auth/push';
import { errorText } from '@/lib/errors/error-text';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ note: z.string().trim().max(500).optional() }).strict();

export const GET = handle(async (request) => {
  const visitor = await signedInVisitor(request);
  if (!visitor.owner) return Response.json({ request: await personaRequestOf(visitor.person.id) });
  const [requests, people] = await Promise.all([personaRequests(), listPeople()]);
  const named = people.filter((person) => requests.has(person.id));
  return Response.json({ requests: named.map((person) => ({ person_id: person.id, name: person.name, ...requests.get(person.id)! })) });
});

export const POST = handle(async (request) => {
  const visitor = await signedInVisitor(request);
  const may = askForPersonaRule(visitor.person);
  if (may.verdict === 'refuse') throw new ApiError('unprocessable', `Nothing to ask: ${may.reason}`);
  const { note } = await readJsonBody(request, bodySchema, 4096);
  const now = new Date();
  const before = await personaRequestOf(visitor.person.id);
  // Asked again within the hour: the note is updated (the first asking's time kept), the owner's phones are not woken again.
  const again = before !== null && now.getTime() - Date.parse(before.asked_at) < 3600_000;
  const asked = await askForPersona(visitor.person.id, note || null, again ? new Date(before.asked_at) : now);
  if (again) return Response.json({ request: asked }, { status: 201 });
  // The owner's phones hear of it; a failed push leaves the request on the People page all the same.
  void pushToPerson(OWNER_ID, { title: `${visitor.person.name} asks for someone to talk to`, body: note || 'Give them a persona on People', url: '/people', tag: `persona-request-${visitor.person.id}` }).catch((error: unknown) =>
    console.error('[push] the persona request was not sent to the owner', errorText(error)),
  );
  return Response.json({ request: asked }, { status: 201 });
});
