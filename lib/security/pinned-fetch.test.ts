// Issue 41 §14: a request goes to the address its guard judged, never to what a second lookup
// says. Loopback only: the names here cannot resolve (.invalid), so an answer proves the connection
// used the pinned address; a resolver that rebinds is asked once per request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardedOAuthFetch, OAuthRefusal } from '@/lib/mcp/oauth-guard';
import { fetchPinned } from './pinned-fetch';

let server: http.Server;
let port = 0;
const hosts: string[] = [];
beforeAll(async () => {
  server = http.createServer((request, response) => {
    hosts.push(String(request.headers.host));
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ path: request.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('a pinned fetch', () => {
  it('connects to the judged address, not to what DNS would say, and keeps the name as the Host', async () => {
    const response = await fetchPinned(new URL(`http://never-resolves.invalid:${port}/x`), undefined, ['127.0.0.1']);
    expect(response).toBeInstanceOf(Response);
    expect(await response.json()).toEqual({ path: '/x' });
    expect(hosts.at(-1)).toBe(`never-resolves.invalid:${port}`);
  });

  it('the OAuth guard resolves once per request and connects there: a rebinding answer after the check changes nothing', async () => {
    // The first answer is the one judged; a rebinding DNS would answer the metadata address after it.
    const resolve = vi.fn().mockResolvedValueOnce(['127.0.0.1']).mockResolvedValue(['169.254.169.254']);
    const guarded = guardedOAuthFetch(`http://rebind.invalid:${port}/mcp`, { resolve });
    const response = await guarded(`http://rebind.invalid:${port}/.well-known/oauth-protected-resource`);
    expect(await response.json()).toEqual({ path: '/.well-known/oauth-protected-resource' });
    expect(resolve).toHaveBeenCalledTimes(1);
    // Asked again, the guard judges the new answer (the metadata address) and refuses before connecting.
    await expect(guarded(`http://rebind.invalid:${port}/again`)).rejects.toBeInstanceOf(OAuthRefusal);
    expect(hosts.filter((host) => host.startsWith('rebind.invalid'))).toHaveLength(1);
  });
});
