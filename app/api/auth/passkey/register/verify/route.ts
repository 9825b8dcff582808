// Keeps a new passkey (issue 61 §1). Made from an invite, it signs this browser in; made by a
// signed-in person, it is one more device of theirs.
import { z } from 'zod';
import { credentialSchema, deviceNameSchema, refusal, signedInResponse, userAgentOf } from '@/lib/http/auth-routes';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { countAttempt, requestRelyingParty, visitorOf, webAuth } from '@/lib/http/web-visitor';
import { findPerson } from '@/lib/store/people-repository';
import { ApiError } from '@/lib/http/api-error';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ credential: credentialSchema, name: deviceNameSchema.optional() }).strict();

export const POST = handle(async (request) => {
  countAttempt(request);
  const body = await readJsonBody(request, bodySchema, 64 * 1024);
  const visitor = await visitorOf(request);
  const rp = requestRelyingParty(request);
  const now = new Date();
  const made = await webAuth()
    .ceremonies.register({ rp, now, response: body.credential as unknown as RegistrationResponseJSON, name: body.name ?? 'Passkey', ...(visitor.person && { personId: visitor.person.id }) })
    .catch(refusal);
  const passkey = { id: made.passkeyId, name: body.name ?? 'Passkey' };
  if (!made.fromInvite) return Response.json({ passkey }, { status: 201 });
  const person = await findPerson(made.personId);
  if (!person) throw new ApiError('not_found', 'This invite is not valid');
  return signedInResponse({ person, passkeyId: made.passkeyId, rp, now, userAgent: userAgentOf(request), body: { passkey } });
});
