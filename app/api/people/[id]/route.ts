import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { patchPersonSchema, personDetail, personJson, personParamsSchema } from '@/lib/http/people-json';
import { peopleChangeRule } from '@/lib/people/rights';
import { deletePerson, findPerson, updatePerson } from '@/lib/store/people-repository';
import { endWebSessionsOf } from '@/lib/store/web-auth-repository';
import { dropPersonaRequest } from '@/lib/store/persona-requests';
import { personaRequestAnswered, signInSurvives } from '@/lib/people/web-reach';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

/** One person whole (ARCHITECTURE §26): their sessions, door keys, memories, today's spend and what their role allows. */
export const GET = handle(async (_request, context: Context) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  const person = await findPerson(id);
  if (!person) throw new ApiError('not_found', `No person ${id}`);
  return Response.json(await personDetail(person, new Date()));
});

/** A person's name, role, daily limits or rights by trait; what may change is the rights authority's answer (one owner). */
export const PATCH = handle(async (request, context: Context) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  const patch = await readJsonBody(request, patchPersonSchema);
  const person = await findPerson(id);
  if (!person) throw new ApiError('not_found', `No person ${id}`);
  for (const answer of [
    patch.role !== undefined ? peopleChangeRule({ personId: id, change: 'role', role: patch.role }) : null,
    patch.rights !== undefined ? peopleChangeRule({ personId: id, change: 'rights' }) : null,
  ]) {
    if (answer?.verdict === 'refuse') throw new ApiError('conflict', answer.reason);
  }
  const updated = (await updatePerson(id, patch))!;
  // Demoted (fewer rights), their signed-in browsers sign in again under the new role's rules (issue 61 §2).
  if (!signInSurvives(person.role, updated.role)) await endWebSessionsOf(id);
  // Given a persona (or made trusted), a guest's request for one is answered (the rights authority says when).
  if (personaRequestAnswered(updated)) await dropPersonaRequest(id);
  return Response.json({ person: personJson(updated) });
});

/** Forgets a person: their identities, bindings, passkeys and signed-in browsers go (they are strangers again); their sessions stay. */
export const DELETE = handle(async (_request, context: Context) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  const may = peopleChangeRule({ personId: id, change: 'forget' });
  if (may.verdict === 'refuse') throw new ApiError('conflict', may.reason);
  if (!(await deletePerson(id))) throw new ApiError('not_found', `No person ${id}`);
  await dropPersonaRequest(id);
  return new Response(null, { status: 204 });
});
