// The owner's access token when the app makes one (bound beyond loopback, behind a public URL, or
// once the first invite turned sign-in on): kept in the data folder (`access-token`, readable by this user alone) so a restart does not lock
// the owner out of every browser that held it (issue 75 §5). AGENTCSD_ACCESS_TOKEN, when set, wins.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { processSlot } from '@/lib/process/process-state';
import type { GuardOptions } from './request-guard';

const FILE = 'access-token';
const WELL_FORMED = /^[0-9a-f]{48}$/;

/** The token kept in `dataDir`, made (and written, mode 0600) the first time or when the file holds anything else. */
export function keptAccessToken(dataDir: string): string {
  const file = path.join(dataDir, FILE);
  try {
    const kept = fs.readFileSync(file, 'utf8').trim();
    if (WELL_FORMED.test(kept)) {
      fs.chmodSync(file, 0o600);
      return kept;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(24).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return token;
}

const TOKEN_COOKIE_SECONDS = 30 * 24 * 3600;

/** The owner's cookie for a browser (HttpOnly, 30 days: the token survives restarts). */
export function tokenCookie(token: string, secure: boolean): string {
  return `agentcsd_token=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${TOKEN_COOKIE_SECONDS}${secure ? '; Secure' : ''}`;
}

/** Sign-in was turned on for this data folder (issue 75 §2): its token file is there. */
export function signInIsOn(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, FILE));
}

// The guard the server checks every request with, held where the routes (Next's bundle) reach it.
const guardSlot = processSlot<GuardOptions | undefined>('security.guard', () => undefined);

/** The server hands its guard over once, at its start. */
export function holdGuard(guard: GuardOptions): void {
  guardSlot.value = guard;
}

/**
 * Sign-in for everyone (issue 75 §2): on an app that needed no token (loopback, none set), the first
 * invite makes the kept token the owner's only way in besides their passkey — from this request on,
 * in this process, and at every start after. `turnedOn`: it was off until now.
 */
export function turnOnSignIn(dataDir: string): { token: string; turnedOn: boolean } {
  const guard = guardSlot.value;
  const wasOn = guard ? Boolean(guard.accessToken) : signInIsOn(dataDir);
  if (guard?.accessToken) return { token: guard.accessToken, turnedOn: false };
  const token = keptAccessToken(dataDir);
  if (guard) guard.accessToken = token;
  return { token, turnedOn: !wasOn };
}
