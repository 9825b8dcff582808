// Localhost hardening (ARCHITECTURE §9, shared/reference/RELIABILITY.md): a Host allow-list
// against DNS rebinding, an Origin check against CSRF and WebSocket hijacking, and an access
// token when the server is reachable from other machines.
import { timingSafeEqual } from 'node:crypto';

export interface GuardOptions {
  port: number;
  /** Host names allowed besides the loopback ones (lower-case, without port). */
  extraHosts: string[];
  /** Required on every request when set (non-loopback bind). */
  accessToken?: string;
}

export interface GuardInput {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite?: string | undefined;
  /** Value of the `agentcsd_token` cookie or the `Authorization: Bearer` header. */
  token?: string | undefined;
}

export type GuardVerdict = { ok: true } | { ok: false; status: number; code: string; message: string };

const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `name` or `name:port` with port equal to ours; the name must be one we serve. */
export function isAllowedHost(host: string | undefined, options: GuardOptions): boolean {
  if (!host) return false;
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host);
  if (!match) return false;
  const name = match[1]!.toLowerCase();
  const port = match[2];
  if (port !== undefined && Number(port) !== options.port) return false;
  return loopbackNames.includes(name) || options.extraHosts.includes(name);
}

export function isAllowedOrigin(origin: string, options: GuardOptions): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '')) return false;
  if (origin !== url.origin) return false;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (port !== options.port) return false;
  const name = url.hostname.toLowerCase();
  return loopbackNames.includes(name) || options.extraHosts.includes(name);
}

function tokensEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function checkRequest(input: GuardInput, options: GuardOptions): GuardVerdict {
  if (!isAllowedHost(input.host, options)) {
    return { ok: false, status: 421, code: 'forbidden_host', message: 'Host not allowed' };
  }
  // Browsers always send Origin on cross-origin and mutating requests; tools like curl send none.
  if (input.origin !== undefined && !isAllowedOrigin(input.origin, options)) {
    return { ok: false, status: 403, code: 'forbidden_origin', message: 'Origin not allowed' };
  }
  if (!safeMethods.has(input.method.toUpperCase()) && input.secFetchSite === 'cross-site') {
    return { ok: false, status: 403, code: 'forbidden_origin', message: 'Cross-site request refused' };
  }
  if (options.accessToken && !(input.token && tokensEqual(input.token, options.accessToken))) {
    return { ok: false, status: 401, code: 'unauthorized', message: 'Access token required' };
  }
  return { ok: true };
}

export function isLoopbackAddress(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function tokenFromHeaders(headers: { authorization?: string; cookie?: string }): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (bearer) return bearer[1];
  const cookie = /(?:^|;\s*)agentcsd_token=([^;]+)/.exec(headers.cookie ?? '');
  return cookie ? decodeURIComponent(cookie[1]!) : undefined;
}
