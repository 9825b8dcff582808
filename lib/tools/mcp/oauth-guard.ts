// What an MCP server's OAuth documents may make the app do (issue 30 §4). Metadata comes from the
// internet, so every request discovery and sign-in make goes through a fetch that refuses this
// machine and its private network — unless the MCP server itself is there (a local server may well
// have a local authorization server) — follows redirects only under the same rule, and never sends
// a non-https request to the internet. What the documents say is checked before anything is kept:
// an authorization server must call itself by the address it was found at (RFC 8414 §3.3), a
// registration must carry our redirect URI, and a token whose audience names another resource is
// refused.
import { lookup } from 'node:dns/promises';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isLocalHostName, isPrivateAddress } from '@/lib/security/network-address';

export class OAuthRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthRefusal';
  }
}

/** Whether the MCP server is on this machine or its network: then so may its sign-in be. */
export function isLocalServer(serverUrl: string | URL): boolean {
  return isLocalHostName(new URL(serverUrl).hostname);
}

async function checkTarget(target: URL, serverUrl: URL, resolve: (host: string) => Promise<string[]>): Promise<void> {
  if (target.origin === serverUrl.origin || isLocalServer(serverUrl)) return;
  if (target.protocol !== 'https:') throw new OAuthRefusal(`refused ${target.origin}: a sign-in on the internet must use https`);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isLocalHostName(host)) throw new OAuthRefusal(`refused ${target.origin}: the server's sign-in documents point at this machine or its private network`);
  const addresses = await resolve(host).catch((error: unknown) => {
    throw new OAuthRefusal(`could not resolve ${host}: ${(error as Error).message}`);
  });
  const inside = addresses.find(isPrivateAddress);
  if (inside) throw new OAuthRefusal(`refused ${target.origin}: ${host} resolves to a private address (${inside})`);
}

const resolveAll = async (host: string) => (await lookup(host, { all: true })).map((entry) => entry.address);

/** fetch for discovery, registration and tokens of the MCP server at `serverUrl`. */
export function guardedOAuthFetch(serverUrl: string | URL, options: { resolve?: (host: string) => Promise<string[]>; fetch?: typeof fetch } = {}): FetchLike {
  const server = new URL(serverUrl);
  const resolve = options.resolve ?? resolveAll;
  const underlying = options.fetch ?? fetch;
  return async (input, init) => {
    let target = new URL(input instanceof URL ? input.href : typeof input === 'string' ? input : (input as Request).url);
    let request: RequestInit | undefined = init;
    for (let hop = 0; hop <= 3; hop++) {
      await checkTarget(target, server, resolve);
      const response = await underlying(target, { ...request, redirect: 'manual' });
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
  if (isLocalServer(input.serverUrl)) return;
  for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
    const value = metadata[key];
    if (typeof value !== 'string') continue;
    const url = new URL(value);
    if (url.protocol !== 'https:') throw new OAuthRefusal(`the authorization server's ${key} is not https (${url.origin}); refused`);
    if (isLocalHostName(url.hostname)) throw new OAuthRefusal(`the authorization server's ${key} points at this machine or its private network (${url.origin}); refused`);
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
