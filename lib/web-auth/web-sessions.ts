// A signed-in browser (issue 61 §2): an HttpOnly, SameSite=Lax cookie holding a random secret; the
// server keeps its sha256 with the person, when it was last seen and until when it is good. Used, it
// is renewed (at most once a minute, so reading pages writes almost nothing); signed out, revoked
// with its passkey, or its person forgotten or demoted, it is gone at once.
import { randomBytes } from 'node:crypto';
import { findPerson, type PersonRecord } from '@/lib/store/people-repository';
import { createWebSession, endWebSessionBySecret, findWebSession, touchWebSession } from '@/lib/store/web-auth-repository';

export const SESSION_COOKIE = 'agentcsd_session';
/** Idle this long, a browser signs in again. */
export const SESSION_IDLE_MS = 30 * 24 * 3600_000;
const RENEW_AFTER_MS = 60_000;
/** Browsers keep a cookie at most 400 days; the server's expiry is what counts. */
const COOKIE_MAX_AGE_S = 400 * 24 * 3600;

export interface SignedIn {
  person: PersonRecord;
  /** The stored hash naming this browser's session (the devices page marks "this device" with it). */
  sessionHash: string;
}

/** The secret in a request's session cookie (undefined when it has none or it is malformed). */
export function sessionSecret(cookieHeader: string | undefined): string | undefined {
  const match = /(?:^|;\s*)agentcsd_session=([A-Za-z0-9_-]{20,100})(?:;|$)/.exec(cookieHeader ?? '');
  return match?.[1];
}

export function sessionCookie(secret: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${secret}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${COOKIE_MAX_AGE_S}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** A new signed-in session for the person: the secret for the cookie (stored only as its hash). */
export async function signIn(input: { personId: string; userAgent: string; passkeyId: string | null; now: Date }): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  await createWebSession({ secret, personId: input.personId, userAgent: input.userAgent, passkeyId: input.passkeyId, now: input.now, expiresAt: new Date(input.now.getTime() + SESSION_IDLE_MS) });
  return secret;
}

/** Who a cookie's secret signs in, renewed on use; null when unknown, expired or its person is gone. */
export async function signedIn(secret: string | undefined, now: Date): Promise<SignedIn | null> {
  if (!secret) return null;
  const session = await findWebSession(secret);
  if (!session) return null;
  if (session.expiresAt <= now) {
    await endWebSessionBySecret(secret);
    return null;
  }
  const person = await findPerson(session.personId);
  if (!person) return null;
  if (now.getTime() - session.lastSeenAt.getTime() >= RENEW_AFTER_MS) await touchWebSession(session.idHash, now, new Date(now.getTime() + SESSION_IDLE_MS));
  return { person, sessionHash: session.idHash };
}

export async function signOut(secret: string | undefined): Promise<void> {
  if (secret) await endWebSessionBySecret(secret);
}
