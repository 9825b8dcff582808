// The Content-Security-Policy of every answer (issue 35 §4): scripts only from this origin or
// carrying this request's nonce (Next reads it from the request's own CSP header and puts it on
// its bootstrap scripts), images only from this origin, data: or blob:, connections only back
// here. A remote image in a model's reply, injected markup or a stray script cannot load
// anything from elsewhere, nor send the page's data out in a URL.
import { randomBytes } from 'node:crypto';

export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

export function contentSecurityPolicy(input: { nonce: string; dev: boolean }): string {
  return [
    "default-src 'self'",
    // Development's React Refresh evaluates modules; production never does.
    `script-src 'self' 'nonce-${input.nonce}'${input.dev ? " 'unsafe-eval'" : ''}`,
    // Inline style attributes (the graph editor positions its nodes with them) cannot fetch or run anything.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    // The app shell's service worker and the web app manifest (issue 50), from this origin only.
    "worker-src 'self'",
    "manifest-src 'self'",
    "media-src 'self' blob:",
    "object-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of an API answer: JSON and files, never a document that runs anything. A shared file
 * (`/api/files/:id`) is someone's bytes shown in the browser: sandboxed with nothing allowed (issue
 * 41 §10: the page policy replaced the route's own sandboxing one).
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** The policy for an answer to this path: the page policy with a fresh nonce, or the API's. */
export function policyForPath(pathname: string, input: { nonce: string; dev: boolean }): string {
  return pathname === '/api' || pathname.startsWith('/api/') ? API_CONTENT_SECURITY_POLICY : contentSecurityPolicy(input);
}

/** Headers every answer carries besides the policy: no Referer to anywhere, no type sniffing. */
export const hardeningHeaders: Record<string, string> = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};
