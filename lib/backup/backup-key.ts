// The archive's secrets under a passphrase: scrypt (N = 2^17, r = 8, p = 1 — about 128 MiB and a
// few hundred milliseconds, once per backup) derives an AES-256-GCM key; the header (what the KDF
// needs) is the additional data, so a changed parameter fails like a wrong passphrase.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { z } from 'zod';
import { BackupError } from './backup-manifest';

const header = z.object({ kdf: z.literal('scrypt'), n: z.number().int().min(2 ** 14).max(2 ** 20), r: z.number().int().min(1).max(32), p: z.number().int().min(1).max(16), salt: z.string().min(16).max(200) });
const envelope = header.extend({ cipher: z.literal('aes-256-gcm'), iv: z.string(), tag: z.string(), body: z.string() });

type Header = z.infer<typeof header>;

function deriveKey(passphrase: string, params: Header): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), Buffer.from(params.salt, 'base64'), 32, { N: params.n, r: params.r, p: params.p, maxmem: 256 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

function aad(params: Header): Buffer {
  return Buffer.from(JSON.stringify([params.kdf, params.n, params.r, params.p, params.salt]), 'utf8');
}

/** A passphrase worth the name: the whole app's keys hang on it. */
export function checkPassphrase(passphrase: string): void {
  if (passphrase.trim().length < 8) throw new BackupError('passphrase', 'The passphrase must have at least 8 characters (it protects every key the app holds).');
}

export async function encryptSecrets(plain: Buffer, passphrase: string, cost: { n?: number } = {}): Promise<Buffer> {
  checkPassphrase(passphrase);
  const params: Header = { kdf: 'scrypt', n: cost.n ?? 2 ** 17, r: 8, p: 1, salt: randomBytes(16).toString('base64') };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(passphrase, params), iv);
  cipher.setAAD(aad(params));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.from(JSON.stringify({ ...params, cipher: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), body: body.toString('base64') }), 'utf8');
}

/** The plain secrets, or a refusal naming the passphrase (a wrong one and a tampered file look alike, on purpose). */
export async function decryptSecrets(sealed: Buffer, passphrase: string): Promise<Buffer> {
  let parsed: z.infer<typeof envelope>;
  try {
    parsed = envelope.parse(JSON.parse(sealed.toString('utf8')));
  } catch {
    throw new BackupError('damaged', 'The backup’s secrets part is not readable: the archive is damaged');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', await deriveKey(passphrase, parsed), Buffer.from(parsed.iv, 'base64'));
    decipher.setAAD(aad(parsed));
    decipher.setAuthTag(Buffer.from(parsed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(parsed.body, 'base64')), decipher.final()]);
  } catch {
    throw new BackupError('passphrase', 'The passphrase does not open this backup’s secrets (nothing was restored). Try again, or restore with --without-secrets and type the keys again.');
  }
}
