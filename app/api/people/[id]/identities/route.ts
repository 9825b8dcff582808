import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { mergeIdentitiesSchema, personJson, personParamsSchema } from '@/lib/http/people-json';
import { findPerson, mergePeople } from '@/lib/store/people-repository';
import { peopleChangeRule } from '@/lib/people/rights';

export const dynamic = 'force-dynamic';

/**
 * One person, several identities: `merge_from`'s identities, chats and conversations become this
 * person's, and `merge_from` goes (ARCHITECTURE §21). The owner is never merged away.
 */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  const { merge_from: from } = await readJsonBody(request, mergeIdentitiesSchema);
  if (from === id) throw new ApiError('conflict', 'A person cannot be merged into themselves');
  const may = peopleChangeRule({ personId: from, change: 'merge_away' });
  if (may.verdict === 'refuse') throw new ApiError('conflict', may.reason);
  if (!(await findPerson(id))) throw new ApiError('not_found', `No person ${id}`);
  if (!(await findPerson(from))) throw new ApiError('not_found', `No person ${from}`);
  return Response.json({ person: personJson((await mergePeople(id, from))!) });
});
