// The one guarded entry of every HTTP request and WebSocket handshake, before authentication:
// nothing a stranger sends (an undecodable cookie, `GET //`, an absolute-form URL, a NUL) may
// throw here — a throw leaves the connection unanswered and pins a descriptor. Malformed input is
// a 400 with the JSON error; the server's timeouts and a cap on unauthenticated connections per
// peer bound what a flood of slow or bad connections can hold.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { checkRequest, sameToken, tokenFromHeaders, type GuardOptions, type GuardVerdict } from '@/lib/security/request-guard';
import { tokenCookie } from './access-token';

/** Time to send the request head; a browser sends it at once. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Time to send a whole request, body included (a 64 MB import on a slow link fits). */
export const REQUEST_TIMEOUT_MS = 120_000;
/**
 * How long an idle connection that already carried a request stays open. Clients that ignore the
 * `Keep-Alive: timeout` header (Node's agents, Playwright's request context) reuse an idle socket
 * just as the server closes it and get a reset: at Node's default 5 s a pause of a few seconds
 * between two calls hits that (seen in the e2e run); a minute makes it rare. Connections that never
 * carried a request are bounded by HEADERS_TIMEOUT_MS and the per-peer cap, not this.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Connections one peer address may hold open before one of them has passed the guard. */
export const UNAUTHENTICATED_CONNECTIONS_PER_PEER = 64;

export interface RequestTarget {
  /** The path without its query, as sent (origin-form only). */
  pathname: string;
  searchParams: URLSearchParams;
}

/**
 * The request target as this server serves it: origin-form (`/path?query`) only. Absolute-form
 * (`http://host/…`), authority-form, `*`, a path starting `//` (a scheme-relative URL) or a
 * backslash, control characters: undefined.
 */
export function parseRequestTarget(raw: string | undefined): RequestTarget | undefined {
  // Browsers turn a path's backslashes into slashes; only a crafted request carries one there.
  if (!raw || raw[0] !== '/' || raw.startsWith('//') || raw.split('?', 1)[0]!.includes('\\')) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return undefined;
  try {
    const url = new URL(raw, 'http://request.invalid');
    if (url.host !== 'request.invalid') return undefined;
    // A path that does not decode (`/%E0%A4%A`) would fail deeper, in the router, as a 500.
    decodeURIComponent(url.pathname);
    return { pathname: url.pathname, searchParams: url.searchParams };
  } catch {
    return undefined;
  }
}

/** The guard's verdict for a request, never a throw: malformed input is a 400. */
export function guardRequest(request: IncomingMessage, options: GuardOptions, method = request.method ?? 'GET'): GuardVerdict {
  try {
    const target = parseRequestTarget(request.url);
    if (!target) {
      return { ok: false, status: 400, code: 'bad_request', message: 'The request target must be a path on this server' };
    }
    // A webhook from another server: a session's hook (POST), or a chat provider's (WhatsApp: GET to verify, POST to deliver).
    const webhook = (method.toUpperCase() === 'POST' && /^\/api\/hooks\/[^/]+$/.test(target.pathname)) || (['GET', 'POST'].includes(method.toUpperCase()) && /^\/api\/channels\/[0-9a-f-]{36}\/whatsapp$/.test(target.pathname));
    const oauthCallback = method.toUpperCase() === 'GET' && target.pathname === '/oauth/callback' && target.searchParams.has('state');
    const shellAsset = ['GET', 'HEAD'].includes(method.toUpperCase()) && /^\/(?:manifest\.webmanifest|icons\/[a-z0-9-]+\.png)$/.test(target.pathname);
    // The doors for other clients (issue 46): a key of Settings › Access, checked by the route, stands for Origin and token.
    const door = target.pathname.startsWith('/v1/');
    const token = tokenFromHeaders({ authorization: request.headers.authorization, cookie: request.headers.cookie });
    if (token === null) return { ok: false, status: 400, code: 'bad_request', message: 'The access-token cookie is not valid percent-encoding' };
    return checkRequest({ method, host: request.headers.host, origin: request.headers.origin, token, webhook, oauthCallback, door, shellAsset }, options);
  } catch {
    return { ok: false, status: 400, code: 'bad_request', message: 'The request could not be read' };
  }
}

export function refuse(response: ServerResponse, status: number, code: string, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code, message } });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  response.end(body);
}

/**
 * Server-wide limits: head and request timeouts, and at most `perPeer` connections from one
 * address that have not yet carried a request the guard let through. Returns the function that
 * marks a connection as let through.
 */
export function limitConnections(server: Server, perPeer = UNAUTHENTICATED_CONNECTIONS_PER_PEER): (socket: Socket) => void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  const waiting = new Map<string, number>();
  const pending = new WeakSet<Socket>();
  const release = (socket: Socket, peer: string) => {
    if (!pending.delete(socket)) return;
    const left = (waiting.get(peer) ?? 1) - 1;
    if (left <= 0) waiting.delete(peer);
    else waiting.set(peer, left);
  };
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    const count = waiting.get(peer) ?? 0;
    if (count >= perPeer) {
      socket.destroy();
      return;
    }
    waiting.set(peer, count + 1);
    pending.add(socket);
    socket.once('close', () => release(socket, peer));
  });
  return (socket) => release(socket, socket.remoteAddress ?? 'unknown');
}

/**
 * Jupyter-style: `/?token=…` once sets an HttpOnly cookie and redirects the token out of the URL.
 * True when it answered (a 303 with the cookie); the token is compared in constant time.
 */
export function acceptTokenFromUrl(request: IncomingMessage, response: ServerResponse, options: GuardOptions): boolean {
  if (!options.accessToken) return false;
  const target = parseRequestTarget(request.url);
  const token = target?.searchParams.get('token');
  if (!target || token === null || token === undefined) return false;
  target.searchParams.delete('token');
  if (!sameToken(token, options.accessToken)) return false;
  const search = target.searchParams.toString();
  response.writeHead(303, {
    location: `${target.pathname}${search ? `?${search}` : ''}`,
    // Kept 30 days (the token survives restarts, access-token.ts): the owner's browser stays the owner's.
    'set-cookie': tokenCookie(token, options.publicUrl?.protocol === 'https:'),
  });
  response.end();
  return true;
}

/**
 * Whether Next's hot-reload socket (`npm run dev`) opens for this handshake (issue 75 §3): for
 * whoever may load a page — the owner, a signed-in person, a stranger on the sign-in and invite
 * pages — since without it no page of theirs hydrates; it carries the build's updates, never data.
 * Host and Origin still hold: only the missing token is let pass, and only on Next's own path.
 */
export function hotReloadAllowed(verdict: GuardVerdict, url: string | undefined): boolean {
  if (verdict.ok) return true;
  return verdict.code === 'unauthorized' && (url ?? '').startsWith('/_next/');
}
