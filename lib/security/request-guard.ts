// Localhost hardening (ARCHITECTURE §9, shared/reference/RELIABILITY.md): a Host allow-list
// against DNS rebinding, an Origin check against CSRF and WebSocket hijacking, and an access
// token when the server is reachable from other machines.
import { createHash, timingSafeEqual } from 'node:crypto';

export interface GuardOptions {
  port: number;
  /** Host names allowed besides the loopback ones (lower-case, without port). */
  extraHosts: string[];
  /** Required on every request when set (non-loopback bind). */
  accessToken?: string;
  /** The address a TLS reverse proxy serves the app at (AGENTCSD_PUBLIC_URL, issue 61): its Host and Origin are ours too. */
  publicUrl?: URL;
}

export interface GuardInput {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  /** Value of the `agentcsd_token` cookie or the `Authorization: Bearer` header. */
  token?: string | undefined;
  /**
   * A delivery to a webhook (`POST /api/hooks/:id`): it comes from another server, with no Origin
   * and no access token — the route refuses anything its hook's secret did not sign.
   */
  webhook?: boolean;
  /** A door for other clients (`/v1/…`, `/mcp`, issue 46): the route checks its key instead of the token; an Origin, when sent, must be ours. */
  door?: boolean;
  /**
   * An authorization server sending the browser back (`GET /oauth/callback`): a cross-site
   * navigation, so the SameSite=Strict token cookie is not sent. The route authenticates it by its
   * single-use, short-lived `state`, which only a sign-in an authenticated user started holds
   * (issue 41 §12); Host and Origin are checked as for any request.
   */
  oauthCallback?: boolean;
  /** GET of the installable app's manifest or icons (issue 50): a browser fetches the manifest without cookies; they hold nothing private. */
  shellAsset?: boolean;
}

/** `exempt`: let through on its own terms (a webhook's secret, a door's key, an OAuth state, a shell asset), not as the owner. */
export type GuardVerdict = { ok: true; exempt?: true } | { ok: false; status: number; code: string; message: string };

const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `name:port` exactly as a browser writes it for our port (no port only when we serve on 80);
 * the name must be one we serve. Other spellings of loopback (`127.1`, `2130706433`, `[::]`)
 * are refused: browsers normalise them, so only a crafted request carries them.
 */
export function isAllowedHost(host: string | undefined, options: GuardOptions): boolean {
  if (!host) return false;
  if (options.publicUrl && host.toLowerCase() === options.publicUrl.host) return true;
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host);
  if (!match) return false;
  const name = match[1]!.toLowerCase();
  const port = match[2] ?? '80';
  if (port !== String(options.port)) return false;
  return loopbackNames.includes(name) || options.extraHosts.includes(name);
}

/** The exact serialised origin of a page we serve: `http://name:port`, nothing more. */
export function isAllowedOrigin(origin: string, options: GuardOptions): boolean {
  if (options.publicUrl && origin === options.publicUrl.origin) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // We serve plain HTTP only; `origin !== url.origin` refuses paths, credentials, odd casing
  // and number forms that the URL parser would normalise.
  if (url.protocol !== 'http:' || origin !== url.origin) return false;
  if ((url.port || '80') !== String(options.port)) return false;
  const name = url.hostname.toLowerCase();
  return loopbackNames.includes(name) || options.extraHosts.includes(name);
}

/** Compared in constant time, lengths included: both sides are hashed to the same length first. */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function checkRequest(input: GuardInput, options: GuardOptions): GuardVerdict {
  if (!isAllowedHost(input.host, options)) {
    return { ok: false, status: 421, code: 'forbidden_host', message: 'Host not allowed' };
  }
  // One rule for every door (`/v1/…` and `/mcp`): a key stands for Origin and token, but an Origin a
  // browser sends must be ours (the MCP spec's rule against DNS rebinding; red-team round 4).
  if (input.door && input.origin !== undefined && !isAllowedOrigin(input.origin, options)) {
    return { ok: false, status: 403, code: 'forbidden_origin', message: 'Origin not allowed' };
  }
  if (input.webhook || input.door) return { ok: true, exempt: true };
  if (input.origin !== undefined && !isAllowedOrigin(input.origin, options)) {
    return { ok: false, status: 403, code: 'forbidden_origin', message: 'Origin not allowed' };
  }
  // Browsers send Origin on every mutating request and WebSocket handshake; a form post or a
  // text/plain fetch from another page therefore carries a foreign one. Requests without any
  // Origin (curl, scripts) must name ours, so nothing mutates state without saying where from.
  if (!safeMethods.has(input.method.toUpperCase()) && input.origin === undefined) {
    return {
      ok: false,
      status: 403,
      code: 'origin_required',
      message: `Mutating requests need an Origin header, e.g. "Origin: http://localhost:${options.port}"`,
    };
  }
  if (input.oauthCallback || input.shellAsset) return { ok: true, exempt: true };
  if (options.accessToken && !(input.token && sameToken(input.token, options.accessToken))) {
    return { ok: false, status: 401, code: 'unauthorized', message: 'Sign in with a passkey, or send the access token' };
  }
  return { ok: true };
}

export function isLoopbackAddress(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The token a request carries; null when its cookie cannot be decoded (a malformed request, never a throw). */
export function tokenFromHeaders(headers: { authorization?: string; cookie?: string }): string | undefined | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (bearer) return bearer[1];
  const cookie = /(?:^|;\s*)agentcsd_token=([^;]+)/.exec(headers.cookie ?? '');
  if (!cookie) return undefined;
  try {
    return decodeURIComponent(cookie[1]!);
  } catch {
    return null;
  }
}
