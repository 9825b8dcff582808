// Who a request is, after the guard (issue 61, ARCHITECTURE §27): the owner (their access token,
// or a loopback app that needs none, or the owner's own passkey), a signed-in person (their session
// cookie), or a stranger. A person reaches what the rights authority's web table lets them; the rest
// answers 404 as if it did not exist. A stranger reaches the sign-in and invite pages and what they
// need; a page sends them to sign in, REST answers 401. Routes learn the answer from the
// `x-agentcsd-actor` header set here (a request's own copy is always dropped first).
import type { IncomingMessage } from 'node:http';
import { actsAsOwner, reachWeb } from '@/lib/people/web-reach';
import { OWNER_ID, type PersonRecord } from '@/lib/store/people-repository';
import { sessionSecret, signedIn } from './web-sessions';

export const ACTOR_HEADER = 'x-agentcsd-actor';
export const WEB_SESSION_HEADER = 'x-agentcsd-web-session';
/** The peer's address as the server saw it, for the sign-in attempt limit. */
export const PEER_HEADER = 'x-agentcsd-peer';

export type Visitor = { kind: 'owner'; sessionHash?: string } | { kind: 'person'; person: PersonRecord; sessionHash: string } | { kind: 'stranger' };

export type EntryDecision =
  | { pass: true; visitor: Visitor }
  | { pass: false; answer: 'sign-in'; location: string }
  | { pass: false; answer: 'not-found'; visitor?: Visitor }
  | { pass: false; answer: 'unauthorized' };

const READ = new Set(['GET', 'HEAD']);

/** What anyone may ask for without signing in: the sign-in and invite pages, the passkey ceremonies, the pages' own code. */
export function openToStrangers(method: string, pathname: string): boolean {
  if (pathname.startsWith('/api/auth/')) return true;
  if (!READ.has(method.toUpperCase())) return false;
  return pathname === '/sign-in' || /^\/join\/[A-Za-z0-9_-]{10,100}$/.test(pathname) || pathname.startsWith('/_next/static/') || pathname === '/favicon.ico';
}

/** A page a browser navigates to (not the API, not a file): a stranger is sent to sign in from it. */
function isPage(method: string, pathname: string): boolean {
  return READ.has(method.toUpperCase()) && !pathname.startsWith('/api/') && !pathname.startsWith('/_next/') && !/\.[a-z0-9]+$/i.test(pathname);
}

/**
 * The decision for a request the guard let through (`tokenOk`: it holds the owner's token, or none
 * is needed) or refused only for lack of the token.
 */
export async function decideEntry(input: {
  method: string;
  pathname: string;
  search: string;
  cookie: string | undefined;
  tokenOk: boolean;
  /** No token is needed at all (an app on loopback without one): `tokenOk` proves nothing of who asks. */
  open?: boolean;
  now: Date;
}): Promise<EntryDecision> {
  const secret = sessionSecret(input.cookie);
  const session = secret ? await signedIn(secret, input.now) : null;
  // An invited person is never the owner (issue 75 §2): on an app that needs no token, a browser
  // signed in as a person is that person; only the token (where there is one) outranks a passkey.
  const asPerson = session !== null && !actsAsOwner(session.person) && input.open === true;
  if (input.tokenOk && !asPerson) {
    // The owner by token (or an open app); a passkey session alongside only names this browser for the devices page.
    return { pass: true, visitor: session?.person.id === OWNER_ID ? { kind: 'owner', sessionHash: session.sessionHash } : { kind: 'owner' } };
  }
  if (session && actsAsOwner(session.person)) return { pass: true, visitor: { kind: 'owner', sessionHash: session.sessionHash } };
  if (session) {
    const visitor: Visitor = { kind: 'person', person: session.person, sessionHash: session.sessionHash };
    if (openToStrangers(input.method, input.pathname)) return { pass: true, visitor };
    const reach = await reachWeb(session.person, input.method, input.pathname);
    return reach.verdict === 'allow' ? { pass: true, visitor } : { pass: false, answer: 'not-found', visitor };
  }
  if (openToStrangers(input.method, input.pathname)) return { pass: true, visitor: { kind: 'stranger' } };
  if (isPage(input.method, input.pathname)) {
    const back = `${input.pathname}${input.search}`;
    return { pass: false, answer: 'sign-in', location: back === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(back)}` };
  }
  return { pass: false, answer: 'unauthorized' };
}

/** The visitor as headers for the routes (the request's own copies of these are dropped before). */
export function visitorHeaders(visitor: Visitor): Record<string, string> {
  const actor = visitor.kind === 'owner' ? OWNER_ID : visitor.kind === 'person' ? visitor.person.id : 'stranger';
  return { [ACTOR_HEADER]: actor, ...(visitor.kind !== 'stranger' && visitor.sessionHash && { [WEB_SESSION_HEADER]: visitor.sessionHash }) };
}

/**
 * The address a request came from, for the sign-in attempt limit. Behind a reverse proxy every
 * phone would share the proxy's address: from the proxy the owner names (AGENTCSD_TRUSTED_PROXIES),
 * and only from it, the last address it appended to X-Forwarded-For. Any other peer — another
 * program on this machine among them (issue 72 §3: every loopback peer was believed) — is its own.
 */
export function peerOf(request: Pick<IncomingMessage, 'headers' | 'socket'>, trustedProxies: readonly string[]): string {
  const remote = request.socket.remoteAddress ?? 'unknown';
  const forwarded = request.headers['x-forwarded-for'];
  if (typeof forwarded !== 'string' || !trustedProxies.includes(remote.replace(/^::ffff:/, ''))) return remote;
  return forwarded.split(',').at(-1)!.trim() || remote;
}

/** AGENTCSD_TRUSTED_PROXIES as addresses (IPv4-mapped IPv6 written as IPv4). */
export function trustedProxies(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim().replace(/^::ffff:/, ''))
    .filter(Boolean);
}

/** Drops what only the server may say about a request, whatever the client sent. */
export function dropServerHeaders(request: IncomingMessage): void {
  delete request.headers[ACTOR_HEADER];
  delete request.headers[WEB_SESSION_HEADER];
  delete request.headers[PEER_HEADER];
}
