import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createPersonSchema, personJson } from '@/lib/http/people-json';
import { createPerson, ensureOwner, listPeople } from '@/lib/store/people-repository';
import { personaRequests } from '@/lib/store/persona-requests';

export const dynamic = 'force-dynamic';

/** Who talks to the agent (ARCHITECTURE §21): the owner and every paired person, with their identities. */
export const GET = handle(async () => {
  await ensureOwner();
  const [people, asking] = await Promise.all([listPeople(), personaRequests()]);
  // A guest's open request for a persona (issue 75 §4) beside their name, for the one-click grant.
  return Response.json({ people: people.map((person) => ({ ...personJson(person), persona_request: asking.get(person.id) ?? null })) });
});

/** A person without an identity yet (one to merge channel identities into). */
export const POST = handle(async (request) => {
  const input = await readJsonBody(request, createPersonSchema);
  return Response.json({ person: personJson(await createPerson(input)) }, { status: 201 });
});
