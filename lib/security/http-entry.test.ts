import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { malformedCookies, malformedTargets } from '@/test/fixtures/malformed-requests';
import { policyForPath } from './content-security-policy';
import { acceptTokenFromUrl, guardRequest, hotReloadAllowed, parseRequestTarget } from './http-entry';
import { sameToken, type GuardOptions } from './request-guard';

const open: GuardOptions = { port: 3000, extraHosts: [] };
const withToken: GuardOptions = { ...open, accessToken: 'secret-token' };

function request(input: { url?: string; cookie?: string; host?: string; origin?: string; method?: string }): IncomingMessage {
  return { method: input.method ?? 'GET', url: input.url ?? '/', headers: { host: input.host ?? 'localhost:3000', cookie: input.cookie, origin: input.origin } } as unknown as IncomingMessage;
}

describe('the guarded entry never throws', () => {
  it.each(malformedCookies)('cookie %j is answered, undecodable ones with 400', (cookie) => {
    for (const options of [open, withToken]) {
      const verdict = guardRequest(request({ cookie }), options);
      let decodable = true;
      try {
        const value = /(?:^|;\s*)agentcsd_token=([^;]+)/.exec(cookie)?.[1];
        if (value) decodeURIComponent(value);
      } catch {
        decodable = false;
      }
      if (!decodable) expect(verdict).toMatchObject({ ok: false, status: 400, code: 'bad_request' });
      else if (options.accessToken) expect(verdict).toMatchObject({ ok: false, status: 401 });
      else expect(verdict, 'a readable cookie on an open server is let through').toMatchObject({ ok: true });
    }
  });

  it.each(malformedTargets)('target %j is a path on this server or a 400', (target) => {
    const verdict = guardRequest(request({ url: target }), open);
    const parsed = parseRequestTarget(target);
    if (!parsed) expect(verdict).toMatchObject({ ok: false, status: 400 });
    else {
      expect(parsed.pathname.startsWith('/')).toBe(true);
      expect(verdict, 'a target read as a path here is let through').toMatchObject({ ok: true });
    }
  });

  it('refuses scheme-relative, absolute-form, backslash and control-character targets; keeps a query backslash', () => {
    for (const target of ['//', '//evil.com/x', 'http://evil.com/', '*', 'localhost:443', '/\\evil.com', '/a\u0000', '', '/api/sessions/%E0%A4%A', '/%']) {
      expect(parseRequestTarget(target), target).toBeUndefined();
    }
    expect(parseRequestTarget('/sessions?q=a\\b')?.pathname).toBe('/sessions');
    expect(parseRequestTarget('/?token=abc')?.searchParams.get('token')).toBe('abc');
  });

  it('a request the guard would refuse for its Host stays a 421; a good one passes', () => {
    expect(guardRequest(request({ host: 'evil.com:3000' }), open)).toMatchObject({ ok: false, status: 421 });
    expect(guardRequest(request({ cookie: 'agentcsd_token=secret-token' }), withToken)).toEqual({ ok: true });
  });
});

describe('webhook deliveries (issue 29)', () => {
  const hook = '/api/hooks/00000000-0000-4000-8000-000000000001';
  it('POST to a hook needs no Origin and no token (its route checks the signature); its Host still must be ours', () => {
    for (const options of [open, withToken]) {
      expect(guardRequest(request({ method: 'POST', url: hook }), options)).toEqual({ ok: true, exempt: true });
      expect(guardRequest(request({ method: 'POST', url: hook, origin: 'https://github.com' }), options)).toEqual({ ok: true, exempt: true });
      expect(guardRequest(request({ method: 'POST', url: hook, host: 'evil.com:3000' }), options)).toMatchObject({ ok: false, status: 421 });
    }
  });
  it('only POST, only that path: managing a hook, or a look-alike path, is guarded as every route', () => {
    expect(guardRequest(request({ method: 'DELETE', url: hook }), open)).toMatchObject({ ok: false, status: 403, code: 'origin_required' });
    expect(guardRequest(request({ method: 'PATCH', url: hook, origin: 'http://localhost:3000' }), withToken)).toMatchObject({ ok: false, status: 401 });
    for (const url of [`${hook}/x`, '/api/hooks', `/api/sessions${hook}`, `/x${hook}`]) {
      expect(guardRequest(request({ method: 'POST', url }), open), url).toMatchObject({ ok: false, status: 403 });
    }
  });
});

describe('the sign-in callback (issue 41 §12)', () => {
  it('GET /oauth/callback with a state needs no token (its route checks the state); Host and Origin as for any request', () => {
    expect(guardRequest(request({ url: '/oauth/callback?state=s&code=c' }), withToken)).toEqual({ ok: true, exempt: true });
    expect(guardRequest(request({ url: '/oauth/callback?state=s&code=c', host: 'evil.com:3000' }), withToken)).toMatchObject({ ok: false, status: 421 });
    expect(guardRequest(request({ url: '/oauth/callback?state=s', origin: 'https://evil.com' }), withToken)).toMatchObject({ ok: false, status: 403 });
  });
  it('without a state, another method or another path, the token is needed', () => {
    expect(guardRequest(request({ url: '/oauth/callback?code=c' }), withToken)).toMatchObject({ ok: false, status: 401 });
    expect(guardRequest(request({ method: 'POST', url: '/oauth/callback?state=s', origin: 'http://localhost:3000' }), withToken)).toMatchObject({ ok: false, status: 401 });
    for (const url of ['/oauth/callback/x?state=s', '/oauth?state=s', '/settings?state=s']) expect(guardRequest(request({ url }), withToken), url).toMatchObject({ ok: false, status: 401 });
  });
});

describe('the installable app’s manifest and icons (issue 50)', () => {
  it('are read without the token (a browser fetches the manifest without cookies), nothing else is', () => {
    for (const url of ['/manifest.webmanifest', '/icons/icon-192.png', '/icons/maskable-512.png']) expect(guardRequest(request({ url }), withToken), url).toEqual({ ok: true, exempt: true });
    for (const url of ['/sw.js', '/icons/../settings', '/icons/x.png/', '/manifest.webmanifest.json', '/icons/a/b.png']) expect(guardRequest(request({ url }), withToken), url).toMatchObject({ ok: false });
    expect(guardRequest(request({ method: 'POST', url: '/manifest.webmanifest', origin: 'http://localhost:3000' }), withToken)).toMatchObject({ ok: false, status: 401 });
    expect(guardRequest(request({ url: '/manifest.webmanifest', host: 'evil.com:3000' }), withToken)).toMatchObject({ ok: false, status: 421 });
  });
});

describe('the token in the URL (issue 41 §14)', () => {
  const answer = () => {
    const written: { status?: number; headers?: Record<string, string> } = {};
    const response = { writeHead: (status: number, headers: Record<string, string>) => Object.assign(written, { status, headers }), end: () => undefined } as unknown as ServerResponse;
    return { response, written };
  };
  it('the right token sets the cookie and leaves the URL; a wrong one of any length is not accepted', () => {
    const right = answer();
    expect(acceptTokenFromUrl(request({ url: '/settings?token=secret-token&x=1' }), right.response, withToken)).toBe(true);
    expect(right.written).toMatchObject({ status: 303, headers: { location: '/settings?x=1', 'set-cookie': expect.stringContaining('agentcsd_token=secret-token; HttpOnly; SameSite=Strict') } });
    for (const token of ['secret-tokem', 'secret-token-', 'secret', '', 'SECRET-TOKEN']) {
      const wrong = answer();
      expect(acceptTokenFromUrl(request({ url: `/?token=${token}` }), wrong.response, withToken), token).toBe(false);
      expect(wrong.written.status).toBeUndefined();
    }
    expect(sameToken('a'.repeat(64), 'a'.repeat(64))).toBe(true);
    expect(sameToken('a'.repeat(64), 'a'.repeat(63))).toBe(false);
  });
});

describe('answers’ content security policy (issue 41 §10)', () => {
  it('API answers, shared files among them, are sandboxed with nothing allowed; pages get the page policy', () => {
    for (const path of ['/api/files/abc', '/api/sessions', '/api']) expect(policyForPath(path, { nonce: 'n', dev: false })).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    for (const path of ['/', '/settings', '/apix', '/sessions/api/files']) expect(policyForPath(path, { nonce: 'n', dev: false })).toContain("script-src 'self' 'nonce-n'");
  });
});

describe('Next’s hot-reload socket in `npm run dev` (issue 75 §3)', () => {
  const hmr = (input: { cookie?: string; host?: string; origin?: string; url?: string }) => hotReloadAllowed(guardRequest(request({ url: '/_next/webpack-hmr?id=1', origin: 'http://localhost:3000', ...input }), withToken, 'GET'), input.url ?? '/_next/webpack-hmr?id=1');
  it('opens without the owner’s token — a person’s page, a stranger’s sign-in page hydrate — on Next’s own path only', () => {
    expect(hmr({})).toBe(true);
    expect(hmr({ cookie: 'agentcsd_token=secret-token' })).toBe(true);
    expect(hmr({ url: '/api/sessions' })).toBe(false);
    expect(hmr({ url: '/socket.io/?EIO=4' })).toBe(false);
  });
  it('never past the Host and Origin rules', () => {
    expect(hmr({ host: 'evil.example' })).toBe(false);
    expect(hmr({ origin: 'http://evil.example' })).toBe(false);
  });
});
