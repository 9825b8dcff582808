// Where untrusted content entered (ARCHITECTURE §20): the session's first untrusted source, the
// user's trusted hosts and servers (one settings row), and the sources behind recalled items.
import { emptyTrust, trustSettingsSchema, type TrustSettings } from '@/lib/config/trust-config';
import { getDb } from './db';
import { parseJsonColumn } from './json-column';

export async function readTrust(): Promise<TrustSettings> {
  const db = await getDb();
  const row = await db.setting.findUnique({ where: { key: 'trust' } });
  return row ? parseJsonColumn(trustSettingsSchema, row.value, 'trusted sources', emptyTrust) : emptyTrust;
}

export async function writeTrust(trust: TrustSettings): Promise<void> {
  const db = await getDb();
  const value = JSON.stringify(trust);
  await db.setting.upsert({ where: { key: 'trust' }, create: { key: 'trust', value }, update: { value } });
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

/** The first untrusted source behind recalled items: memories written from untrusted content, messages of untrusted sessions. */
export async function untrustedBehind(items: { memoryIds: number[]; sessionIds: string[] }): Promise<string | null> {
  const db = await getDb();
  if (items.memoryIds.length > 0) {
    const memory = await db.memory.findFirst({ where: { id: { in: items.memoryIds }, untrustedSource: { not: null } }, select: { untrustedSource: true } });
    if (memory?.untrustedSource) return memory.untrustedSource;
  }
  if (items.sessionIds.length > 0) {
    const session = await db.session.findFirst({ where: { id: { in: items.sessionIds }, untrustedSource: { not: null } }, select: { name: true, untrustedSource: true } });
    if (session?.untrustedSource) return `a message of the session "${session.name}", which read ${session.untrustedSource}`;
  }
  return null;
}
