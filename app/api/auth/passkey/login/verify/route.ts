// Signs a browser in with a passkey (issue 61 §1-2): the session cookie in the answer.
import { z } from 'zod';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { credentialSchema, refusal, signedInResponse, userAgentOf } from '@/lib/http/auth-routes';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { countAttempt, requestRelyingParty, webAuth } from '@/lib/http/web-visitor';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ credential: credentialSchema }).strict();

export const POST = handle(async (request) => {
  countAttempt(request);
  const body = await readJsonBody(request, bodySchema, 64 * 1024);
  const rp = requestRelyingParty(request);
  const now = new Date();
  const { person, passkeyId } = await webAuth()
    .ceremonies.authenticate({ rp, now, response: body.credential as unknown as AuthenticationResponseJSON })
    .catch(refusal);
  return signedInResponse({ person, passkeyId, rp, now, userAgent: userAgentOf(request) });
});
