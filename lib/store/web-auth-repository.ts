// People on the web (issue 61, ARCHITECTURE §27) as rows: passkeys, signed-in browsers and
// one-time invites. Secrets (a session's cookie, an invite's token) are stored as sha256 only.
import { sha256Hex } from '@/lib/security/digest';
import { getDb } from './db';

export interface PasskeyRecord {
  id: string;
  personId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface WebSessionRecord {
  idHash: string;
  personId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string;
  passkeyId: string | null;
}

type PasskeyRow = Omit<PasskeyRecord, 'transports'> & { transports: string };
const passkeyRecord = (row: PasskeyRow): PasskeyRecord => ({ ...row, transports: JSON.parse(row.transports) as string[] });

export async function addPasskey(input: { id: string; personId: string; publicKey: string; counter: number; transports: string[]; name: string }): Promise<PasskeyRecord> {
  const row = await (await getDb()).passkey.create({ data: { ...input, transports: JSON.stringify(input.transports) } });
  return passkeyRecord(row);
}

export async function findPasskey(id: string): Promise<PasskeyRecord | null> {
  const row = await (await getDb()).passkey.findUnique({ where: { id } });
  return row ? passkeyRecord(row) : null;
}

export async function passkeysOf(personId: string): Promise<PasskeyRecord[]> {
  const rows = await (await getDb()).passkey.findMany({ where: { personId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(passkeyRecord);
}

/** After a sign-in: the authenticator's new counter, and when. */
export async function passkeyUsed(id: string, counter: number, at: Date): Promise<void> {
  await (await getDb()).passkey.updateMany({ where: { id }, data: { counter, lastUsedAt: at } });
}

/** Renames or removes one of the person's own passkeys; false when it is not theirs (or gone). */
export async function renamePasskey(personId: string, id: string, name: string): Promise<boolean> {
  return (await (await getDb()).passkey.updateMany({ where: { id, personId }, data: { name } })).count === 1;
}

/** A revoked passkey signs in no more, and the browsers it signed in are signed out with it. */
export async function revokePasskey(personId: string, id: string): Promise<boolean> {
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const { count } = await tx.passkey.deleteMany({ where: { id, personId } });
    if (count === 1) await tx.webSession.deleteMany({ where: { personId, passkeyId: id } });
    return count === 1;
  });
}

export async function createWebSession(input: { secret: string; personId: string; expiresAt: Date; userAgent: string; passkeyId: string | null; now: Date }): Promise<void> {
  await (await getDb()).webSession.create({
    data: { idHash: sha256Hex(input.secret), personId: input.personId, createdAt: input.now, lastSeenAt: input.now, expiresAt: input.expiresAt, userAgent: input.userAgent.slice(0, 300), passkeyId: input.passkeyId },
  });
}

export async function findWebSession(secret: string): Promise<WebSessionRecord | null> {
  return (await getDb()).webSession.findUnique({ where: { idHash: sha256Hex(secret) } });
}

/** Renewed on use: seen now, and valid until `expiresAt` again. */
export async function touchWebSession(idHash: string, now: Date, expiresAt: Date): Promise<void> {
  await (await getDb()).webSession.updateMany({ where: { idHash }, data: { lastSeenAt: now, expiresAt } });
}

export async function webSessionsOf(personId: string): Promise<WebSessionRecord[]> {
  return (await getDb()).webSession.findMany({ where: { personId }, orderBy: [{ lastSeenAt: 'desc' }] });
}

/** Ends one browser's session (by its stored hash: the devices page names sessions so). */
export async function endWebSession(personId: string, idHash: string): Promise<boolean> {
  return (await (await getDb()).webSession.deleteMany({ where: { idHash, personId } })).count === 1;
}

export async function endWebSessionBySecret(secret: string): Promise<void> {
  await (await getDb()).webSession.deleteMany({ where: { idHash: sha256Hex(secret) } });
}

/** Every browser of a person signed out at once (demoted, or signed out everywhere). */
export async function endWebSessionsOf(personId: string): Promise<number> {
  return (await (await getDb()).webSession.deleteMany({ where: { personId } })).count;
}

export async function dropExpiredWebSessions(now: Date): Promise<void> {
  const db = await getDb();
  await db.webSession.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.invite.deleteMany({ where: { expiresAt: { lt: now } } });
}

export async function createInvite(input: { token: string; personId: string; expiresAt: Date; now: Date }): Promise<void> {
  await (await getDb()).invite.create({ data: { tokenHash: sha256Hex(input.token), personId: input.personId, createdAt: input.now, expiresAt: input.expiresAt } });
}

/** The person an unused, unexpired invite is for (null: unknown, used or expired — the same answer). */
export async function openInvite(token: string, now: Date): Promise<string | null> {
  const row = await (await getDb()).invite.findUnique({ where: { tokenHash: sha256Hex(token) } });
  return row && !row.usedAt && row.expiresAt > now ? row.personId : null;
}

/** Marks the invite used, once: false when another request used it first (or it expired meanwhile). */
export async function useInvite(token: string, now: Date): Promise<boolean> {
  const { count } = await (await getDb()).invite.updateMany({ where: { tokenHash: sha256Hex(token), usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  return count === 1;
}

export interface PushSubscriptionRecord {
  endpoint: string;
  personId: string;
  p256dh: string;
  auth: string;
}

/**
 * A device of the person allowed notifications. The same endpoint with the same keys is the same
 * browser (another person signed in on it): it becomes theirs. Another person's endpoint with other
 * keys is not a device of this person's — it would move someone's phone to them (issue 72 §3):
 * refused ('taken'), nothing changed.
 */
export async function savePushSubscription(input: PushSubscriptionRecord): Promise<'saved' | 'taken'> {
  const db = await getDb();
  const existing = await db.pushSubscription.findUnique({ where: { endpoint: input.endpoint } });
  if (existing && existing.personId !== input.personId && (existing.p256dh !== input.p256dh || existing.auth !== input.auth)) return 'taken';
  await db.pushSubscription.upsert({ where: { endpoint: input.endpoint }, create: input, update: { personId: input.personId, p256dh: input.p256dh, auth: input.auth } });
  return 'saved';
}

export async function pushSubscriptionsOf(personId: string): Promise<PushSubscriptionRecord[]> {
  return (await getDb()).pushSubscription.findMany({ where: { personId }, select: { endpoint: true, personId: true, p256dh: true, auth: true } });
}

/** Drops a device (its person turned notifications off, or the push service said it is gone). */
export async function dropPushSubscription(endpoint: string, personId?: string): Promise<boolean> {
  return (await (await getDb()).pushSubscription.deleteMany({ where: { endpoint, ...(personId && { personId }) } })).count > 0;
}
