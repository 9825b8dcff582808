import { describe, expect, it } from 'vitest';
import { checkRequest, isAllowedHost, isAllowedOrigin, tokenFromHeaders, type GuardOptions } from './request-guard';

const options: GuardOptions = { port: 3000, extraHosts: [] };

describe('Host allow-list (DNS rebinding)', () => {
  it.each(['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST:3000', 'localhost'])('allows %s', (host) => {
    expect(isAllowedHost(host, options)).toBe(true);
  });
  it.each([
    undefined,
    '',
    ':3000',
    'evil.com',
    'localhost.evil.com:3000',
    '127.0.0.1.evil.com:3000',
    'localhost:3001',
    '127.0.0.2:3000',
    '2130706433:3000',
    '0x7f000001:3000',
    '0.0.0.0:3000',
    'localhost:3000@evil.com',
    'user@localhost:3000',
    'localhost:3000 ',
    'localhost:03000x',
  ])('refuses %j', (host) => {
    expect(isAllowedHost(host, options)).toBe(false);
  });
});

describe('Origin check (CSRF, socket hijacking)', () => {
  it.each(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000'])('allows %s', (origin) => {
    expect(isAllowedOrigin(origin, options)).toBe(true);
  });
  it.each(['null', 'http://evil.com', 'http://localhost:3001', 'http://localhost.evil.com:3000', 'file://', 'http://localhost:3000/path', 'https://localhost'])(
    'refuses %s',
    (origin) => {
      expect(isAllowedOrigin(origin, options)).toBe(false);
    },
  );

  it('refuses a mutating request from a foreign origin, allows tools that send none', () => {
    expect(checkRequest({ method: 'POST', host: 'localhost:3000', origin: 'http://evil.com' }, options)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ method: 'POST', host: 'localhost:3000', origin: 'null' }, options)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ method: 'POST', host: 'localhost:3000', origin: undefined, secFetchSite: 'cross-site' }, options)).toMatchObject({ ok: false });
    expect(checkRequest({ method: 'POST', host: 'localhost:3000', origin: undefined }, options)).toEqual({ ok: true });
    expect(checkRequest({ method: 'GET', host: 'evil.com', origin: undefined }, options)).toMatchObject({ ok: false, status: 421 });
  });

  it('requires the access token when one is set', () => {
    const withToken = { ...options, accessToken: 'a'.repeat(48) };
    expect(checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined }, withToken)).toMatchObject({ status: 401 });
    expect(checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined, token: 'a'.repeat(47) }, withToken)).toMatchObject({ status: 401 });
    expect(checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined, token: 'a'.repeat(48) }, withToken)).toEqual({ ok: true });
    expect(tokenFromHeaders({ cookie: 'x=1; agentcsd_token=abc' })).toBe('abc');
    expect(tokenFromHeaders({ authorization: 'Bearer xyz' })).toBe('xyz');
  });
});
