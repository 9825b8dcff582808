import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createPersonSchema, personJson } from '@/lib/http/people-json';
import { createPerson, ensureOwner, listPeople } from '@/lib/store/people-repository';

export const dynamic = 'force-dynamic';

/** Who talks to the agent (ARCHITECTURE §21): the owner and every paired person, with their identities. */
export const GET = handle(async () => {
  await ensureOwner();
  return Response.json({ people: (await listPeople()).map(personJson) });
});

/** A person without an identity yet (one to merge channel identities into). */
export const POST = handle(async (request) => {
  const input = await readJsonBody(request, createPersonSchema);
  return Response.json({ person: personJson(await createPerson(input)) }, { status: 201 });
});
