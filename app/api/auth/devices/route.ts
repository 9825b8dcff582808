// A person's own passkeys and signed-in browsers (issue 61 §1, "My devices").
import { handle } from '@/lib/http/route-helpers';
import { signedInVisitor } from '@/lib/http/web-visitor';
import { passkeysOf, webSessionsOf } from '@/lib/store/web-auth-repository';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request) => {
  const { person, sessionHash } = await signedInVisitor(request);
  const [passkeys, sessions] = await Promise.all([passkeysOf(person.id), webSessionsOf(person.id)]);
  return Response.json({
    passkeys: passkeys.map((key) => ({ id: key.id, name: key.name, transports: key.transports, created_at: key.createdAt.toISOString(), last_used_at: key.lastUsedAt?.toISOString() ?? null })),
    sessions: sessions.map((session) => ({
      id: session.idHash,
      user_agent: session.userAgent,
      created_at: session.createdAt.toISOString(),
      last_seen_at: session.lastSeenAt.toISOString(),
      expires_at: session.expiresAt.toISOString(),
      current: session.idHash === sessionHash,
    })),
  });
});
