// The pure parts of who a request is (issue 61): what strangers may ask for, the cookie's secret
// read strictly, the relying party a request signs in to, and the peer an attempt counts against.
import { describe, expect, it } from 'vitest';
import { Challenges } from './challenges';
import { NoRelyingParty, publicOrigin, relyingParty } from './relying-party';
import { openToStrangers, peerOf, trustedProxies } from './web-entry';
import { sessionSecret } from './web-sessions';

describe('what a stranger reaches', () => {
  it('the sign-in and invite pages, the passkey routes, the pages’ own code — nothing else', () => {
    for (const [method, path] of [['GET', '/sign-in'], ['GET', '/join/abcdefghijklmnop'], ['POST', '/api/auth/passkey/login/options'], ['GET', '/_next/static/chunks/a.js'], ['HEAD', '/favicon.ico']]) expect(openToStrangers(method!, path!), path).toBe(true);
    for (const [method, path] of [['POST', '/sign-in'], ['GET', '/join/../settings'], ['GET', '/join/short'], ['GET', '/'], ['GET', '/api/sessions'], ['GET', '/sw.js'], ['POST', '/_next/static/x'], ['GET', '/_next/image']]) expect(openToStrangers(method!, path!), path).toBe(false);
  });

  it('reads only a well-formed session cookie', () => {
    const secret = 'a'.repeat(43);
    expect(sessionSecret(`x=1; agentcsd_session=${secret}; y=2`)).toBe(secret);
    for (const header of [undefined, '', 'agentcsd_session=', `agentcsd_session=${secret};evil`.replace(';evil', '%00'), 'agentcsd_session=short', `xagentcsd_session=${secret}`]) expect(sessionSecret(header), String(header)).toBeUndefined();
  });
});

describe('the relying party', () => {
  it('is the public URL when set; else the name the browser used, never an address', () => {
    expect(relyingParty({ publicUrl: publicOrigin('https://agent.home.example'), host: '127.0.0.1:3000' })).toEqual({ id: 'agent.home.example', origin: 'https://agent.home.example', secure: true });
    expect(relyingParty({ publicUrl: undefined, host: 'localhost:3000' })).toEqual({ id: 'localhost', origin: 'http://localhost:3000', secure: false });
    for (const host of ['127.0.0.1:3000', '[::1]:3000', undefined]) expect(() => relyingParty({ publicUrl: undefined, host })).toThrow(NoRelyingParty);
    expect(() => publicOrigin('http://agent.home.example')).toThrow(/https/);
  });
});

describe('the peer an attempt counts against', () => {
  const request = (remote: string, forwarded?: string) => ({ socket: { remoteAddress: remote }, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} }) as never;
  it('from the proxy the owner names, the address it appended; from anyone else the socket’s own (issue 72 §3)', () => {
    const proxies = trustedProxies(' 127.0.0.1 , ::ffff:10.0.0.2');
    expect(proxies).toEqual(['127.0.0.1', '10.0.0.2']);
    expect(peerOf(request('127.0.0.1', '203.0.113.9, 198.51.100.7'), proxies)).toBe('198.51.100.7');
    expect(peerOf(request('::ffff:127.0.0.1', '198.51.100.7'), proxies)).toBe('198.51.100.7');
    expect(peerOf(request('10.0.0.2', '198.51.100.8'), proxies)).toBe('198.51.100.8');
    // No proxy named: even a loopback peer (another program here) is its own address.
    expect(peerOf(request('127.0.0.1', '198.51.100.7'), [])).toBe('127.0.0.1');
    expect(peerOf(request('127.0.0.2', '198.51.100.7'), proxies)).toBe('127.0.0.2');
    // A client on the network cannot choose its own address by sending the header.
    expect(peerOf(request('192.168.1.20', '10.9.9.9'), proxies)).toBe('192.168.1.20');
  });
});

describe('a ceremony’s challenge', () => {
  it('answers once, within five minutes', () => {
    let now = 0;
    const challenges = new Challenges(() => now);
    challenges.remember('c1', { purpose: 'login' });
    challenges.remember('c2', { purpose: 'login' });
    expect(challenges.take('c1')).toEqual({ purpose: 'login' });
    expect(challenges.take('c1')).toBeUndefined();
    now = 5 * 60_000 + 1;
    expect(challenges.take('c2')).toBeUndefined();
  });
});
