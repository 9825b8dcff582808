// What an MCP server's OAuth documents may make the app do (issue 30 §4, issue 41 §7). Metadata
// comes from the server's side, whether the server is on the internet or on this machine, so every
// request discovery and sign-in make goes through one rule: the server's own origin is the user's
// choice; anything else must be https on a public address — except that a server on this machine
// or its network may have its sign-in on the same host (another port, plain http); a link-local
// (metadata) address is refused for every server. Redirects are followed only under the same rule,
// and each request connects to the addresses that were judged (pinned-fetch.ts: no second lookup
// for DNS rebinding to answer otherwise). What the documents say is checked before anything is
// kept: an authorization server must call itself by the address it was found at (RFC 8414 §3.3),
// its endpoints obey the same rule, a registration must carry our redirect URI, and a token whose
// audience names another resource is refused.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isLinkLocalAddress, isLocalHostName, isPrivateAddress } from '@/lib/security/network-address';
import { fetchPinned, resolveHost, systemResolve, type Resolve } from '@/lib/security/pinned-fetch';
import { errorText } from '@/lib/errors/error-text';

export class OAuthRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthRefusal';
  }
}

/** Whether the MCP server is on this machine or its network. */
export function isLocalServer(serverUrl: string | URL): boolean {
  return isLocalHostName(new URL(serverUrl).hostname);
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1';

/** A target on the same machine as a local server: its host, or both loopback. */
function besideLocalServer(target: URL, server: URL): boolean {
  if (!isLocalServer(server)) return false;
  const [a, b] = [hostOf(target), hostOf(server)];
  return a === b || (isLoopbackName(a) && isLoopbackName(b));
}

/** Why a URL named by the server's documents is refused before any lookup, or null. */
function refusedByName(target: URL, server: URL, what: string): string | null {
  if (isLinkLocalAddress(hostOf(target))) return `${what} is a link-local (cloud metadata) address (${target.origin})`;
  if (target.origin === server.origin || besideLocalServer(target, server)) return null;
  if (target.protocol !== 'https:') return `${what} is not https (${target.origin}): only the server's own host may sign in over http`;
  if (isLocalHostName(hostOf(target))) return `${what} points at this machine or its private network (${target.origin})`;
  return null;
}

/** The addresses to connect to for `target`, judged; throws OAuthRefusal. */
async function judgedAddresses(target: URL, server: URL, resolve: Resolve): Promise<string[]> {
  const refused = refusedByName(target, server, 'the sign-in request');
  if (refused) throw new OAuthRefusal(`refused ${target.origin}: ${refused}`);
  const host = hostOf(target);
  const addresses = await resolveHost(host, resolve).catch((error: unknown) => {
    throw new OAuthRefusal(`could not resolve ${host}: ${errorText(error)}`);
  });
  const metadata = addresses.find(isLinkLocalAddress);
  if (metadata) throw new OAuthRefusal(`refused ${target.origin}: ${host} resolves to a link-local (cloud metadata) address (${metadata})`);
  if (target.origin === server.origin || besideLocalServer(target, server)) return addresses;
  const inside = addresses.find(isPrivateAddress);
  if (inside) throw new OAuthRefusal(`refused ${target.origin}: ${host} resolves to a private address (${inside})`);
  return addresses;
}

/**
 * fetch for discovery, registration and tokens of the MCP server at `serverUrl`. With `fetch`
 * given (tests), the addresses are judged the same way and the given fetch is called instead of
 * the pinned one.
 */
export function guardedOAuthFetch(serverUrl: string | URL, options: { resolve?: Resolve; fetch?: typeof fetch } = {}): FetchLike {
  const server = new URL(serverUrl);
  const resolve = options.resolve ?? systemResolve;
  return async (input, init) => {
    let target = new URL(input instanceof URL ? input.href : typeof input === 'string' ? input : (input as Request).url);
    let request: RequestInit | undefined = init;
    for (let hop = 0; hop <= 3; hop++) {
      const addresses = await judgedAddresses(target, server, resolve);
      const response = options.fetch ? await options.fetch(target, { ...request, redirect: 'manual' }) : await fetchPinned(target, request, addresses);
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (!location) return response;
      target = new URL(location, target);
      // A redirected POST is not repeated (its body may hold a code or a secret).
      if ((request?.method ?? 'GET').toUpperCase() !== 'GET') throw new OAuthRefusal(`refused a redirect of a ${request?.method} to ${target.origin}`);
      request = { ...request };
    }
    throw new OAuthRefusal('too many redirects');
  };
}

const withoutSlash = (url: string) => url.replace(/\/+$/, '');

/** What discovery found, checked before it is kept or used. */
export function checkAuthorizationServer(input: { serverUrl: string; authorizationServerUrl: string; metadata: Record<string, unknown> | undefined }): void {
  const { metadata } = input;
  if (!metadata) return;
  // The metadata must come from the party it names: an issuer on another origin than the server it
  // was fetched from is refused (RFC 8414 §3.3). A path of its own on the same origin is the same
  // party (servers of the 2025-03-26 revision publish `…/oauth` issuers at their root).
  const issuer = typeof metadata.issuer === 'string' ? metadata.issuer : '';
  const origin = (url: string) => {
    try {
      return new URL(url).origin;
    } catch {
      return null;
    }
  };
  if (origin(issuer) === null || origin(issuer) !== origin(input.authorizationServerUrl)) {
    throw new OAuthRefusal(`the authorization server found at ${input.authorizationServerUrl} calls itself ${JSON.stringify(issuer)}; refused (RFC 8414 §3.3)`);
  }
  const server = new URL(input.serverUrl);
  for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
    const value = metadata[key];
    if (typeof value !== 'string') continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new OAuthRefusal(`the authorization server's ${key} is not a URL; refused`);
    }
    const refused = refusedByName(url, server, `the authorization server's ${key}`);
    if (refused) throw new OAuthRefusal(`${refused}; refused`);
  }
}

/** A registration that does not carry our redirect URI would send the user's code elsewhere. */
export function checkRegistration(information: Record<string, unknown>, redirectUrl: string): void {
  const uris = information.redirect_uris;
  if (Array.isArray(uris) && !uris.includes(redirectUrl)) {
    throw new OAuthRefusal(`the authorization server registered redirect URIs ${JSON.stringify(uris)}, not ours (${redirectUrl}); refused`);
  }
}

/** A JWT access token names its audience; one for another resource is refused. Opaque tokens pass. */
export function checkTokenAudience(accessToken: string, resource: string): void {
  const parts = accessToken.split('.');
  if (parts.length !== 3) return;
  let claims: { aud?: unknown };
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { aud?: unknown };
  } catch {
    return;
  }
  if (claims.aud === undefined) return;
  const audiences = (Array.isArray(claims.aud) ? claims.aud : [claims.aud]).filter((value): value is string => typeof value === 'string').map(withoutSlash);
  if (!audiences.includes(withoutSlash(resource))) {
    throw new OAuthRefusal(`the access token is for ${JSON.stringify(claims.aud)}, not for ${resource}; refused`);
  }
}
