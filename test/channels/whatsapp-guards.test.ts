// WhatsApp's hostile inputs (issue 77 §1, §5), on the guards' own decisions: a delivery's signature
// is the HMAC of its exact bytes with the app secret (any change, another secret, a malformed
// header: refused); the handshake echoes only our verify token; a delivery for another phone number
// counts for nothing; a media URL off Meta's host is never fetched nor given the token (decided
// before any connection: the address is never dialed); a file past the cap is refused on its
// stated size; the token never appears in an error; Meta's path alone passes the request guard
// without the owner's token, and only as a stranger.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WhatsAppGraph } from '@/lib/channels/whatsapp-graph';
import { readDelivery, signedByMeta, verificationAnswer } from '@/lib/channels/whatsapp-webhook';
import { checkRequest } from '@/lib/security/request-guard';
import { guardRequest } from '@/lib/security/http-entry';

const secret = '0123456789abcdef0123456789abcdef';
const body = Buffer.from(JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1111111' }, messages: [{ id: 'wamid.1', from: '15550001', timestamp: '1700000000', type: 'text', text: { body: 'hi' } }] } }] }] }));
const signature = (bytes: Buffer, key = secret) => `sha256=${createHmac('sha256', key).update(bytes).digest('hex')}`;

describe('a delivery’s signature and shape', () => {
  it('is Meta’s only for these exact bytes and this secret', () => {
    expect(signedByMeta(body, signature(body), secret)).toBe(true);
    expect(signedByMeta(body, signature(body).toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(true);
    const changed = Buffer.from(body.toString().replace('"hi"', '"hj"'));
    expect(signedByMeta(changed, signature(body), secret)).toBe(false);
    expect(signedByMeta(body, signature(body, 'another-secret-another-secret-00'), secret)).toBe(false);
    for (const header of [null, '', 'sha256=', 'sha1=abc', `sha256=${'0'.repeat(63)}`, `${signature(body)} extra`]) expect(signedByMeta(body, header, secret)).toBe(false);
    expect(signedByMeta(body, signature(body, ''), '')).toBe(false); // no secret: nothing is Meta's
  });

  it('counts only our number’s messages, and is not a delivery when it is not one', () => {
    expect(readDelivery(body, '1111111')?.messages.map((message) => message.text?.body)).toEqual(['hi']);
    expect(readDelivery(body, '2222222')).toEqual({ messages: [], statuses: [] });
    for (const raw of ['not json', '{"object":"page","entry":[]}', '{"object":"whatsapp_business_account"}', '[]']) expect(readDelivery(Buffer.from(raw), '1111111')).toBeNull();
    const hostileSender = Buffer.from(body.toString().replace('"from":"15550001"', '"from":"1555\\u0000; rm -rf /"'));
    expect(readDelivery(hostileSender, '1111111')).toBeNull();
  });

  it('answers the handshake’s challenge for our verify token only', () => {
    const ask = (token: string, mode = 'subscribe', challenge = '1158201444') => verificationAnswer(new URLSearchParams({ 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge }), 'our-token');
    expect(ask('our-token')).toEqual({ status: 200, body: '1158201444' });
    expect(ask('our-tokeN').status).toBe(403);
    expect(ask('our-token', 'unsubscribe').status).toBe(403);
    expect(ask('our-token', 'subscribe', '<script>alert(1)</script>').status).toBe(400);
    expect(verificationAnswer(new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': '', 'hub.challenge': '1' }), '').status).toBe(403);
  });
});

describe('media from WhatsApp', () => {
  let server: http.Server;
  let root = '';
  let answers: Record<string, unknown> = {};
  const requests: string[] = [];
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      requests.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
      const found = Object.entries(answers).find(([path]) => request.url?.endsWith(path));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found?.[1] ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const graph = () => new WhatsAppGraph({ phone_number_id: '1111111', access_token: 'EAAGsecret-token-value-0001', app_secret: secret, verify_token: 'x', api_root: root, template: null });

  it('is never fetched from off Meta’s host, nor given the token; nothing is dialed', async () => {
    const dialed = vi.spyOn(globalThis, 'fetch');
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'https://lookaside.fbsbx.com.evil.example/file', 'http://lookaside.fbsbx.com/plain-http', 'file:///etc/passwd']) {
      answers = { '/m1': { url, mime_type: 'image/jpeg', file_size: 10 } };
      expect(await graph().media('m1')).toEqual({ refused: expect.stringMatching(/outside Meta's media host|no address/) });
    }
    const targets = dialed.mock.calls.map(([target]) => String(target));
    expect(targets.every((target) => target.startsWith(root))).toBe(true);
    dialed.mockRestore();
  });

  it('is refused on its stated size past the cap, before its bytes are asked for', async () => {
    expect(await graph().media('m2', 500 * 1024 * 1024)).toEqual({ refused: expect.stringContaining('larger than') });
    answers = { '/m3': { url: `${root}/bytes/m3`, file_size: 500 * 1024 * 1024 } };
    const before = requests.length;
    expect(await graph().media('m3')).toEqual({ refused: expect.stringContaining('larger than') });
    expect(requests.slice(before).some((line) => line.includes('/bytes/'))).toBe(false);
  });

  it('keeps the token out of every error', async () => {
    const broken = new WhatsAppGraph({ phone_number_id: '1111111', access_token: 'EAAGsecret-token-value-0001', app_secret: secret, verify_token: 'x', api_root: 'http://127.0.0.1:9', template: null });
    const failed = await broken.send('15550001', { type: 'text', text: { body: 'hi' } }).catch((error: Error) => error);
    expect((failed as Error).message).toContain('did not answer');
    expect((failed as Error).message).not.toContain('EAAGsecret');
  });
});

describe('the request guard', () => {
  const options = { port: 3000, extraHosts: [], accessToken: 'the-owners-token' };
  const request = (method: string, url: string) => ({ method, url, headers: { host: 'localhost:3000' } }) as never;
  it('lets Meta’s webhook path through without the owner’s token — as a stranger — and nothing else', () => {
    const path = '/api/channels/7d0c7a5e-3b1f-4a55-9a3e-2f1f0c2f3a11/whatsapp';
    expect(guardRequest(request('POST', path), options)).toEqual({ ok: true, exempt: true });
    expect(guardRequest(request('GET', `${path}?hub.mode=subscribe`), options)).toEqual({ ok: true, exempt: true });
    for (const [method, url] of [['PUT', path], ['DELETE', path], ['POST', `${path}/x`], ['POST', '/api/channels/not-a-uuid/whatsapp'], ['GET', '/api/channels'], ['POST', `/api/sessions${path}`]] as const) {
      expect(guardRequest(request(method, url), options)).toMatchObject({ ok: false });
    }
    expect(checkRequest({ method: 'POST', host: 'evil.example', origin: undefined, webhook: true }, options)).toMatchObject({ ok: false, status: 421 });
  });
});
