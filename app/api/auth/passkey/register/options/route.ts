// Options to make a passkey (issue 61 §1): from an invite (anyone holding the link), or for the
// signed-in person adding a device.
import { z } from 'zod';
import { refusal } from '@/lib/http/auth-routes';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { countAttempt, requestRelyingParty, visitorOf, webAuth } from '@/lib/http/web-visitor';
import { ApiError } from '@/lib/http/api-error';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ invite: z.string().regex(/^[A-Za-z0-9_-]{10,100}$/).optional() }).strict();

export const POST = handle(async (request) => {
  countAttempt(request);
  const { invite } = await readJsonBody(request, bodySchema, 4096);
  const visitor = await visitorOf(request);
  if (!invite && !visitor.person) throw new ApiError('unauthorized', 'Open your invite link, or sign in first');
  const rp = requestRelyingParty(request);
  const made = await webAuth()
    .ceremonies.registrationOptions({ rp, now: new Date(), ...(invite ? { invite } : { personId: visitor.person!.id }) })
    .catch(refusal);
  return Response.json({ options: made.options, person: made.person });
});
