// A push service of the tests' own on loopback (issue 61 §5), as a browser's would be: it hands out
// subscriptions whose keys the test made (a P-256 key pair and an auth secret, as a browser makes
// them), and for each message it checks the VAPID signature (RFC 8292: an ES256 JWT for this
// origin, not expired, signed by the key the header names) and decrypts the body with the
// subscription's private key (RFC 8291 over RFC 8188 aes128gcm). It can answer 404 or 410.
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PushedMessage {
  subscription: string;
  payload: string;
  vapid: { subject: string; publicKey: string };
  ttl: string | undefined;
}

export interface TestSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface TestPushService {
  origin: string;
  /** A new subscription (its keys made here, its private half kept here to decrypt). */
  subscribe(): TestSubscription;
  /** What this subscription's endpoint answers from now on (201 by default; 410 = gone). */
  answer(endpoint: string, status: number): void;
  received: PushedMessage[];
  /** Messages refused (bad VAPID, undecryptable), with the reason. */
  refused: string[];
  close(): Promise<void>;
}

const b64 = (bytes: Buffer) => bytes.toString('base64url');
const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8292: `vapid t=<jwt>, k=<key>` — the JWT's ES256 signature by k, its audience this origin, its expiry within 24 h. */
export function checkVapid(header: string | undefined, origin: string, now = Date.now()): { subject: string; publicKey: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)$/.exec(header ?? '');
  if (!match) throw new Error(`no VAPID authorization: ${header}`);
  const [jwt, key] = [match[1]!, match[2]!];
  const [head, body, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }, format: 'jwk' });
  if (!verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))) throw new Error('the VAPID signature does not verify');
  const header_ = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string };
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as { aud?: string; exp?: number; sub?: string };
  if (header_.alg !== 'ES256') throw new Error(`alg ${header_.alg}`);
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  if (!claims.exp || claims.exp * 1000 < now || claims.exp * 1000 > now + 24 * 3600_000 + 60_000) throw new Error(`exp ${claims.exp}`);
  if (!claims.sub || !/^(mailto:|https:)/.test(claims.sub)) throw new Error(`sub ${claims.sub}`);
  return { subject: claims.sub, publicKey: key };
}

/** RFC 8291 + RFC 8188: the plaintext of an aes128gcm body for the subscriber's keys. */
export function decryptPush(body: Buffer, subscriber: { privateKey: Buffer; publicKey: Buffer; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const serverKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (ciphertext.length > recordSize) throw new Error('more than one record');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(subscriber.privateKey);
  const secret = ecdh.computeSecret(serverKey);
  const prkKey = hmac(subscriber.auth, secret);
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), subscriber.publicKey, serverKey, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'binary')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'binary')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end -= 1;
  if (plain[end] !== 2) throw new Error('no last-record delimiter');
  return plain.subarray(0, end).toString('utf8');
}

export async function startPushService(): Promise<TestPushService> {
  const subscribers = new Map<string, { privateKey: Buffer; publicKey: Buffer; auth: Buffer; status: number }>();
  const received: PushedMessage[] = [];
  const refused: string[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const subscriber = subscribers.get(request.url ?? '');
      if (!subscriber || request.method !== 'POST') return void response.writeHead(404).end();
      if (subscriber.status !== 201) return void response.writeHead(subscriber.status).end();
      try {
        if (request.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${request.headers['content-encoding']}`);
        const vapid = checkVapid(request.headers.authorization, origin);
        received.push({ subscription: `${origin}${request.url}`, payload: decryptPush(Buffer.concat(chunks), subscriber), vapid, ttl: request.headers.ttl as string | undefined });
        response.writeHead(201, { location: `${request.url}/messages/${randomUUID()}` }).end();
      } catch (error) {
        refused.push((error as Error).message);
        response.writeHead(400).end((error as Error).message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    refused,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/${randomUUID()}`;
      subscribers.set(path, { privateKey: ecdh.getPrivateKey(), publicKey, auth, status: 201 });
      return { endpoint: `${origin}${path}`, keys: { p256dh: b64(publicKey), auth: b64(auth) } };
    },
    answer(endpoint, status) {
      subscribers.get(new URL(endpoint).pathname)!.status = status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
