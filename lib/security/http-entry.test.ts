import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { malformedCookies, malformedTargets } from '@/test/fixtures/malformed-requests';
import { guardRequest, parseRequestTarget } from './http-entry';
import type { GuardOptions } from './request-guard';

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
    }
  });

  it.each(malformedTargets)('target %j is a path on this server or a 400', (target) => {
    const verdict = guardRequest(request({ url: target }), open);
    const parsed = parseRequestTarget(target);
    if (!parsed) expect(verdict).toMatchObject({ ok: false, status: 400 });
    else expect(parsed.pathname.startsWith('/')).toBe(true);
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
      expect(guardRequest(request({ method: 'POST', url: hook }), options)).toEqual({ ok: true });
      expect(guardRequest(request({ method: 'POST', url: hook, origin: 'https://github.com' }), options)).toEqual({ ok: true });
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
