// Options to sign in with a passkey (issue 61 §1): any passkey of this site the browser holds.
import { handle } from '@/lib/http/route-helpers';
import { countAttempt, requestRelyingParty, webAuth } from '@/lib/http/web-visitor';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request) => {
  countAttempt(request);
  return Response.json({ options: await webAuth().ceremonies.authenticationOptions({ rp: requestRelyingParty(request) }) });
});
