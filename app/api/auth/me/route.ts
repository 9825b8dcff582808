// Who this browser is signed in as (issue 61, ARCHITECTURE §27).
import { handle } from '@/lib/http/route-helpers';
import { signedInVisitor } from '@/lib/http/web-visitor';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request) => {
  const { person, sessionHash } = await signedInVisitor(request);
  return Response.json({ person: { id: person.id, name: person.name, role: person.role }, passkey_session: sessionHash !== null });
});
