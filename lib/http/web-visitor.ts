// What a route knows of who asks (issue 61): the server's entry (lib/web-auth/web-entry.ts) names
// the visitor in headers it alone sets. The owner (token, open loopback app, or their passkey), a
// signed-in person, or a stranger (only on the sign-in and invite routes).
import { readEnv } from '@/lib/config/env';
import { seeSession, type Actor } from '@/lib/people/rights';
import { actsAsOwner, seeWords } from '@/lib/people/web-reach';
import { findPerson, OWNER_ID, type PersonRecord } from '@/lib/store/people-repository';
import { AttemptLimit } from '@/lib/web-auth/attempt-limit';
import { PasskeyCeremonies } from '@/lib/web-auth/passkeys';
import { publicOrigin, relyingParty, type RelyingParty } from '@/lib/web-auth/relying-party';
import { ACTOR_HEADER, PEER_HEADER, WEB_SESSION_HEADER } from '@/lib/web-auth/web-entry';
import { ApiError } from './api-error';
import { processSlot } from '@/lib/process/process-state';

export interface WebVisitor {
  /** null: a stranger (not signed in). */
  person: PersonRecord | null;
  owner: boolean;
  /** The stored hash of this browser's session, when it is signed in by a passkey. */
  sessionHash: string | null;
}

export async function visitorOf(request: Request): Promise<WebVisitor> {
  const actor = request.headers.get(ACTOR_HEADER) ?? OWNER_ID;
  const sessionHash = request.headers.get(WEB_SESSION_HEADER);
  if (actor === 'stranger') return { person: null, owner: false, sessionHash: null };
  const person = await findPerson(actor);
  if (!person) throw new ApiError('not_found', 'Not found');
  return { person, owner: actsAsOwner(person), sessionHash };
}

/** The asking person as the rights authority's actor, on the page path. */
export async function pageActor(request: Request): Promise<Actor> {
  return { person: (await visitorOf(request)).person, via: 'page' };
}

/** A route only a signed-in visitor (owner or person) reaches. */
export async function signedInVisitor(request: Request): Promise<WebVisitor & { person: PersonRecord }> {
  const visitor = await visitorOf(request);
  if (!visitor.person) throw new ApiError('unauthorized', 'Sign in first');
  return visitor as WebVisitor & { person: PersonRecord };
}

/** The relying party for this request (the public URL's, or the name the browser used here). */
export function requestRelyingParty(request: Request): RelyingParty {
  return relyingParty({ publicUrl: publicOrigin(readEnv().AGENTCSD_PUBLIC_URL), host: request.headers.get('host') ?? undefined });
}

/** The address invite links point at: the public URL, else this app as the browser reached it (by name: passkeys need one). */
export function linkBase(request: Request): string {
  const publicUrl = publicOrigin(readEnv().AGENTCSD_PUBLIC_URL);
  if (publicUrl) return publicUrl.origin;
  const host = (request.headers.get('host') ?? 'localhost').replace(/^(127\.\d+\.\d+\.\d+|\[::1\])(?=:|$)/, 'localhost');
  return `http://${host}`;
}

const webAuthSlot = processSlot<{ ceremonies: PasskeyCeremonies; attempts: AttemptLimit } | undefined>('http.web-auth', () => undefined);

/** One set of ceremonies and one attempt limit per process (route bundles share them through the process state). */
export function webAuth(): { ceremonies: PasskeyCeremonies; attempts: AttemptLimit } {
  webAuthSlot.value ??= { ceremonies: new PasskeyCeremonies(), attempts: new AttemptLimit() };
  return webAuthSlot.value;
}

/** Counts a sign-in attempt of this peer; 429 past the limit. */
export function countAttempt(request: Request): void {
  if (!webAuth().attempts.take(request.headers.get(PEER_HEADER) ?? 'unknown')) throw new ApiError('too_many_requests', 'Too many sign-in attempts from here: wait a minute');
}

/**
 * 404 unless the visitor may see the session (the owner every one, a person their own): what is not
 * theirs answers as if it did not exist (issue 61 §3).
 */
export async function requireVisibleSession(request: Request, sessionId: string | null | undefined): Promise<WebVisitor> {
  const visitor = await visitorOf(request);
  if (visitor.owner) return visitor;
  if (!visitor.person || !sessionId || (await seeSession({ person: visitor.person, via: 'page' }, sessionId)).verdict !== 'allow') throw new ApiError('not_found', 'Not found');
  return visitor;
}

/** Whether this session's words are not the visitor's to read (the owner, with people's words kept their own). */
export async function wordsHidden(request: Request, sessionId: string): Promise<boolean> {
  const { person } = await visitorOf(request);
  return person !== null && (await seeWords(person, sessionId)).verdict === 'refuse';
}

/** 403 when the session's words are not the visitor's to read (the owner, with people's words kept their own: issue 61 §6). */
export async function requireWords(request: Request, sessionId: string): Promise<WebVisitor> {
  const visitor = await requireVisibleSession(request, sessionId);
  const may = visitor.person ? await seeWords(visitor.person, sessionId) : { verdict: 'allow' as const };
  if (may.verdict === 'refuse') throw new ApiError('forbidden', `You do not read this conversation: ${may.reason}`);
  return visitor;
}
