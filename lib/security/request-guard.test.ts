import { describe, expect, it } from 'vitest';
import { allowedHosts, allowedOrigins, hostileHosts, hostileOrigins } from '@/test/fixtures/hostile-headers';
import { checkRequest, isAllowedHost, isAllowedOrigin, tokenFromHeaders, type GuardOptions } from './request-guard';

const options: GuardOptions = { port: 3000, extraHosts: [] };

describe('Host allow-list (DNS rebinding)', () => {
  it.each(allowedHosts(3000))('allows %s', (host) => {
    expect(isAllowedHost(host, options)).toBe(true);
  });
  // Values a transport would trim or split are refused here, before any parser sees them.
  it.each([undefined, ...hostileHosts(3000), 'localhost:3000 ', ' localhost:3000', 'localhost:3000\u0000', 'localhost\t:3000'])(
    'refuses %j',
    (host) => {
      expect(isAllowedHost(host, options)).toBe(false);
      expect(checkRequest({ method: 'GET', host, origin: undefined }, options)).toMatchObject({ ok: false, status: 421 });
    },
  );

  it('allows a configured extra name (a LAN name) and no port only on port 80', () => {
    expect(isAllowedHost('box.lan:3000', { ...options, extraHosts: ['box.lan'] })).toBe(true);
    expect(isAllowedHost('box.lan:3000', options)).toBe(false);
    expect(isAllowedHost('localhost', { ...options, port: 80 })).toBe(true);
    expect(isAllowedHost('localhost:80', { ...options, port: 80 })).toBe(true);
  });
});

describe('Origin check (CSRF, socket hijacking)', () => {
  it.each(allowedOrigins(3000))('allows %s', (origin) => {
    expect(isAllowedOrigin(origin, options)).toBe(true);
    expect(checkRequest({ method: 'POST', host: 'localhost:3000', origin }, options)).toEqual({ ok: true });
  });
  it.each(hostileOrigins(3000))('refuses %j on mutating and reading requests', (origin) => {
    expect(isAllowedOrigin(origin, options)).toBe(false);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'GET']) {
      expect(checkRequest({ method, host: 'localhost:3000', origin }, options)).toMatchObject({ ok: false, status: 403, code: 'forbidden_origin' });
    }
  });

  it('needs an Origin to mutate; reading without one is fine (curl, navigation)', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) {
      expect(checkRequest({ method, host: 'localhost:3000', origin: undefined }, options)).toMatchObject({ ok: false, status: 403, code: 'origin_required' });
    }
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(checkRequest({ method, host: 'localhost:3000', origin: undefined }, options)).toEqual({ ok: true });
    }
  });

  it.each(hostileOrigins(3000))('red-team round 4: every door path (/v1/…, /mcp) refuses %j too; without an Origin a door needs none', (origin) => {
    for (const method of ['POST', 'GET']) {
      expect(checkRequest({ method, host: 'localhost:3000', origin, door: true }, options)).toMatchObject({ ok: false, status: 403, code: 'forbidden_origin' });
      expect(checkRequest({ method, host: 'localhost:3000', origin: undefined, door: true }, options)).toEqual({ ok: true, exempt: true });
      expect(checkRequest({ method, host: 'localhost:3000', origin: 'http://localhost:3000', door: true }, options)).toEqual({ ok: true, exempt: true });
    }
  });

  it('checks the Host before the Origin: a rebinding page whose Origin matches its Host is refused', () => {
    expect(checkRequest({ method: 'POST', host: 'evil.com:3000', origin: 'http://evil.com:3000' }, options)).toMatchObject({ status: 421 });
  });
});

describe('access token (non-loopback bind)', () => {
  const withToken = { ...options, accessToken: 'a'.repeat(48) };
  it('is required on every request, compared whole', () => {
    expect(checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined }, withToken)).toMatchObject({ status: 401 });
    for (const token of ['', 'a'.repeat(47), 'a'.repeat(49), 'A'.repeat(48), `${'a'.repeat(47)}b`]) {
      expect(checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined, token }, withToken)).toMatchObject({ status: 401 });
    }
    expect(checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined, token: 'a'.repeat(48) }, withToken)).toEqual({ ok: true });
  });
  it('is read from the cookie or a bearer header', () => {
    expect(tokenFromHeaders({ cookie: 'x=1; agentcsd_token=abc' })).toBe('abc');
    expect(tokenFromHeaders({ authorization: 'Bearer xyz' })).toBe('xyz');
    expect(tokenFromHeaders({ cookie: 'not_agentcsd_token=abc' })).toBeUndefined();
  });
});
