// Where untrusted content entered (ARCHITECTURE §20): the session's first untrusted source, the
// user's trusted hosts and servers (one settings row), and the sources behind recalled items.
import { emptyTrust, trustSettingsSchema, type TrustSettings } from '@/lib/config/trust-config';
import { getDb } from './db';
import { readJsonSetting, writeJsonSetting } from './settings-repository';

export function readTrust(): Promise<TrustSettings> {
  return readJsonSetting('trust', trustSettingsSchema, 'trusted sources', emptyTrust);
}

export function writeTrust(trust: TrustSettings): Promise<void> {
  return writeJsonSetting('trust', trust);
}

/** Records that untrusted content entered the session (the first source is kept); true when it is new. */
export async function markSessionUntrusted(sessionId: string, source: string): Promise<boolean> {
  const db = await getDb();
  const result = await db.session.updateMany({ where: { id: sessionId, untrustedSource: null }, data: { untrustedSource: source.slice(0, 500) } });
  return result.count > 0;
}

export async function sessionUntrustedSource(sessionId: string): Promise<string | null> {
  const db = await getDb();
  return (await db.session.findUnique({ where: { id: sessionId }, select: { untrustedSource: true } }))?.untrustedSource ?? null;
}

/** The user has read the session and vouches for what is in it: calls stop asking for this reason. */
export async function clearSessionUntrusted(sessionId: string): Promise<boolean> {
  const db = await getDb();
  return (await db.session.updateMany({ where: { id: sessionId }, data: { untrustedSource: null } })).count > 0;
}

/** Why messages of these sessions are untrusted content (the first marked session's source), or null. */
export async function untrustedMessageSource(sessionIds: string[]): Promise<string | null> {
  const db = await getDb();
  const session = await db.session.findFirst({ where: { id: { in: sessionIds }, untrustedSource: { not: null } }, select: { name: true, untrustedSource: true } });
  return session?.untrustedSource ? `a message of the session "${session.name}", which read ${session.untrustedSource}` : null;
}
