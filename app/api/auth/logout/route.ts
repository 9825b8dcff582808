// Signs this browser out (issue 61 §2): its session ends on the server and the cookie is cleared.
import { handle } from '@/lib/http/route-helpers';
import { requestRelyingParty } from '@/lib/http/web-visitor';
import { clearedSessionCookie, sessionSecret, signOut } from '@/lib/web-auth/web-sessions';
import { NoRelyingParty } from '@/lib/web-auth/relying-party';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request) => {
  await signOut(sessionSecret(request.headers.get('cookie') ?? undefined));
  let secure = false;
  try {
    secure = requestRelyingParty(request).secure;
  } catch (error) {
    if (!(error instanceof NoRelyingParty)) throw error;
  }
  return new Response(null, { status: 204, headers: { 'set-cookie': clearedSessionCookie(secure) } });
});
