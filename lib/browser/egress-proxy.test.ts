// The browser's egress rule, as a corpus (issue 45 §3): hostile hosts are refused on the address the
// test resolver gives (nothing beyond loopback is dialled), and the proxy is no open relay — a
// request without this context's credentials gets 407 and reaches nothing.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy, judgeHost, type EgressRules } from './egress-proxy';

const names: Record<string, string[]> = {
  'public.example': ['93.184.216.34'],
  'rebind.example': ['93.184.216.34', '10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'v6-metadata.example': ['fd00:ec2::254'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'intranet.example': ['192.168.1.20'],
  'listed-private.example': ['10.1.2.3'],
};
const resolve = async (host: string) => {
  const found = names[host];
  if (!found) throw new Error(`unknown host ${host}`);
  return found;
};

describe('judgeHost', () => {
  const open: EgressRules = { allowedHosts: new Set(['listed-private.example', '127.0.0.1:8080', 'metadata.example']), allowPublic: true };
  const closed: EgressRules = { allowedHosts: new Set(['listed-private.example']), allowPublic: false };
  it.each([
    ['public.example', 443, open, null],
    ['listed-private.example', 80, open, null],
    ['127.0.0.1', 8080, open, null],
    ['127.0.0.1', 8081, open, /loopback, private or link-local address \(127\.0\.0\.1\)/],
    ['localhost', 80, open, /could not be resolved/],
    ['rebind.example', 443, open, /10\.0\.0\.7/],
    ['intranet.example', 80, open, /192\.168\.1\.20/],
    ['mapped.example', 80, open, /::ffff:127\.0\.0\.1/],
    ['metadata.example', 80, open, /link-local \(cloud metadata\) address \(169\.254\.169\.254\)/],
    ['v6-metadata.example', 80, open, /link-local \(cloud metadata\)/],
    ['169.254.169.254', 80, open, /loopback, private or link-local/],
    ['[::1]', 80, open, /loopback, private or link-local/],
    ['0.0.0.0', 80, open, /loopback, private or link-local/],
    ['public.example', 443, closed, /not an allowed host/],
    ['listed-private.example', 8443, closed, /not an allowed host/],
  ] as const)('%s:%s', async (host, port, rules, refused) => {
    const verdict = await judgeHost(host, port, rules, resolve);
    if (refused === null) expect(verdict).toHaveProperty('addresses');
    else expect('refused' in verdict ? verdict.refused : 'allowed').toMatch(refused);
  });
});

describe('the proxy', () => {
  const proxy = new EgressProxy(resolve);
  let site: http.Server;
  let port = 0;
  let proxyPort = 0;
  let credentials = { username: '', password: '' };
  beforeAll(async () => {
    site = http.createServer((_request, response) => response.end('site reached'));
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    port = (site.address() as AddressInfo).port;
    proxyPort = Number(new URL(await proxy.start()).port);
    credentials = proxy.register({ allowedHosts: new Set([`127.0.0.1:${port}`]), allowPublic: false });
  });
  afterAll(async () => {
    await proxy.stop();
    site.close();
  });

  const viaProxy = (auth: string | null, target: string) =>
    new Promise<{ status: number; body: string }>((done, fail) => {
      const request = http.request({ host: '127.0.0.1', port: proxyPort, path: target, headers: auth ? { 'proxy-authorization': `Basic ${Buffer.from(auth).toString('base64')}` } : {} }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => done({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', fail);
      request.end();
    });
  const connect = (auth: string | null, target: string) =>
    new Promise<string>((done) => {
      const socket = net.connect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: Basic ${Buffer.from(auth).toString('base64')}\r\n` : ''}\r\n`));
      socket.once('data', (chunk) => {
        done(chunk.toString().split('\r\n')[0]!);
        socket.destroy();
      });
    });

  it('forwards a listed host with the context’s credentials, and records nothing refused', async () => {
    expect(await viaProxy(`${credentials.username}:${credentials.password}`, `http://127.0.0.1:${port}/`)).toEqual({ status: 200, body: 'site reached' });
    expect(proxy.takeRefusals(credentials.username)).toEqual([]);
  });

  it('is no open relay: no, wrong or another context’s credentials get 407 on plain HTTP and on CONNECT', async () => {
    for (const auth of [null, `${credentials.username}:wrong`, `nobody:${credentials.password}`, `${credentials.username}`]) {
      expect((await viaProxy(auth, `http://127.0.0.1:${port}/`)).status).toBe(407);
      expect(await connect(auth, `127.0.0.1:${port}`)).toBe('HTTP/1.1 407 Proxy Authentication Required');
    }
  });

  it('refuses an unlisted host, a metadata name and a non-http scheme, and says which by URL', async () => {
    const auth = `${credentials.username}:${credentials.password}`;
    expect((await viaProxy(auth, 'http://metadata.example/latest/meta-data/')).status).toBe(403);
    expect(await connect(auth, 'intranet.example:443')).toBe('HTTP/1.1 403 Forbidden');
    expect((await viaProxy(auth, 'ftp://127.0.0.1/')).status).toBe(403);
    expect(proxy.takeRefusals(credentials.username).map((refusal) => refusal.url)).toEqual(['http://metadata.example/latest/meta-data/', 'https://intranet.example:443/', 'ftp://127.0.0.1/']);
  });
});
