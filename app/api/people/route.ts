import { randomUUID } from 'node:crypto';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createPersonSchema, personJson } from '@/lib/http/people-json';
import { ensureOwner, findPerson, listPeople, updatePerson } from '@/lib/store/people-repository';
import { getDb } from '@/lib/store/db';

export const dynamic = 'force-dynamic';

/** Who talks to the agent (ARCHITECTURE §21): the owner and every paired person, with their identities. */
export const GET = handle(async () => {
  await ensureOwner();
  return Response.json({ people: (await listPeople()).map(personJson) });
});

/** A person without an identity yet (one to merge channel identities into). */
export const POST = handle(async (request) => {
  const input = await readJsonBody(request, createPersonSchema);
  const id = randomUUID();
  await (await getDb()).person.create({ data: { id, name: input.name, role: input.role } });
  if (input.limits) await updatePerson(id, { limits: input.limits });
  return Response.json({ person: personJson((await findPerson(id))!) }, { status: 201 });
});
