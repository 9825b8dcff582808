import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { patchPersonSchema, personJson, personParamsSchema } from '@/lib/http/people-json';
import { deletePerson, findPerson, OWNER_ID, updatePerson } from '@/lib/store/people-repository';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

/** A person's name, role or daily limits. There is one owner: nobody else becomes one, the owner stays one. */
export const PATCH = handle(async (request, context: Context) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  const patch = await readJsonBody(request, patchPersonSchema);
  const person = await findPerson(id);
  if (!person) throw new ApiError('not_found', `No person ${id}`);
  if (patch.role !== undefined && (patch.role === 'owner') !== (id === OWNER_ID)) {
    throw new ApiError('conflict', id === OWNER_ID ? 'The owner stays the owner' : 'There is one owner: make this person trusted instead');
  }
  return Response.json({ person: personJson((await updatePerson(id, patch))!) });
});

/** Forgets a person: their identities and bindings go (they are strangers again); their sessions stay. */
export const DELETE = handle(async (_request, context: Context) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  if (id === OWNER_ID) throw new ApiError('conflict', 'The owner cannot be removed');
  if (!(await deletePerson(id))) throw new ApiError('not_found', `No person ${id}`);
  return new Response(null, { status: 204 });
});
