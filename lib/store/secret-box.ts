// Secrets at rest (issue 30): AES-256-GCM with a key that never leaves the machine — the
// AGENTCSD_SECRET_KEY variable, else `<data folder>/secret.key` (32 random bytes, made on first
// use with mode 0600). Each sealed value is bound to what it belongs to (its row), so a value
// copied into another row does not open there. A database copied without the key opens nothing.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { appPaths, readEnv } from '@/lib/config/env';
import { processSlot } from '@/lib/process/process-state';

const VERSION = 'v1';
const cached = processSlot<{ source: string; key: Buffer } | null>('store.secret-key', () => null);

function keyFile(): string {
  return path.join(appPaths().dataDir, 'secret.key');
}

/** The sealing key: from the environment, else the data folder's file (created once, 0600). */
export function secretKey(): Buffer {
  const fromEnv = readEnv().AGENTCSD_SECRET_KEY;
  const source = fromEnv ? 'env' : keyFile();
  if (cached.value?.source === source) return cached.value.key;
  let key: Buffer;
  if (fromEnv) key = Buffer.from(fromEnv, 'base64');
  else {
    fs.mkdirSync(path.dirname(source), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(source, randomBytes(32), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    key = fs.readFileSync(source);
    if (key.length !== 32) throw new Error(`${source} must hold exactly 32 bytes (it holds ${key.length}); move it away to make a new one, and sign in again`);
  }
  cached.value = { source, key };
  return key;
}

export function seal(plain: string, boundTo: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey(), iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** The plain text, or null when the value was sealed with another key or for another row. */
export function open(sealed: string, boundTo: string): string | null {
  if (!sealed.startsWith(`${VERSION}:`)) return null;
  const bytes = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
  if (bytes.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', secretKey(), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
