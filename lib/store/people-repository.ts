// People (issue 42, ARCHITECTURE §21) as rows: who talks to the agent, by which identities, and
// the people each session's conversation belongs to. The owner (id `owner`) is whoever uses the
// web page; every paired sender is a person of their own (a guest until the owner says otherwise).
import { randomUUID } from 'node:crypto';
import type { QuietHours } from '@/lib/config/quiet-hours';
import { getDb, getStore } from './db';
import { rawDb, sqliteDateOf, statement } from './raw-db';
import { z } from 'zod';
import { readJsonSetting, writeJsonSetting } from './settings-repository';
import { processSlot } from '@/lib/process/process-state';

export const OWNER_ID = 'owner';
export const PERSON_ROLES = ['owner', 'trusted', 'guest'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

export interface PersonLimits {
  messages_per_day?: number;
  spend_usd_per_day?: number;
  /** When the agent's unprompted words wait for this person, on every chat of theirs and their phone (issue 74 §5). */
  quiet_hours?: QuietHours;
  /** Personas the owner gave this person to start conversations with (a guest has no others, issue 75 §4). */
  personas?: string[];
}

/** The owner's changes to a person's tool traits, as stored (lib/people/tool-traits.ts reads them). */
export interface StoredRights {
  allow: string[];
  deny: string[];
}

export interface PersonIdentityRecord {
  id: string;
  kind: string;
  sender: string;
  name: string;
  createdAt: Date;
}

export interface PersonRecord {
  id: string;
  name: string;
  role: PersonRole;
  limits: PersonLimits | null;
  rights: StoredRights | null;
  createdAt: Date;
  identities: PersonIdentityRecord[];
}

type PersonRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['person']['findUniqueOrThrow']>> & { identities?: PersonIdentityRecord[] };

const personRecord = (row: PersonRow): PersonRecord => ({
  id: row.id,
  name: row.name,
  role: row.role as PersonRole,
  limits: row.limits ? (JSON.parse(row.limits) as PersonLimits) : null,
  rights: row.rights ? (JSON.parse(row.rights) as StoredRights) : null,
  createdAt: row.createdAt,
  identities: (row.identities ?? []).map(({ id, kind, sender, name, createdAt }) => ({ id, kind, sender, name, createdAt })),
});

const withIdentities = { identities: { orderBy: { createdAt: 'asc' as const } } };

/** The owner's row: made by the migration, made again if it was ever removed by hand. */
export async function ensureOwner(): Promise<PersonRecord> {
  const db = await getDb();
  const row = await db.person.upsert({ where: { id: OWNER_ID }, create: { id: OWNER_ID, name: 'Owner', role: 'owner' }, update: {}, include: withIdentities });
  return personRecord(row);
}

export async function listPeople(): Promise<PersonRecord[]> {
  const rows = await (await getDb()).person.findMany({ include: withIdentities, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(personRecord);
}

export async function findPerson(id: string): Promise<PersonRecord | null> {
  const store = await getStore();
  // On SQLite statements prepared once: every door request and channel message asks this.
  if (store.kind === 'sqlite') {
    const raw = rawDb();
    const rows = statement(raw, 'SELECT id, name, role, limits, rights, created_at FROM people WHERE id = ?').all(id) as SqlitePersonRow[];
    if (rows.length === 0) return null;
    const identities = statement(raw, 'SELECT id, person_id, kind, sender, name, created_at FROM person_identities WHERE person_id = ? ORDER BY created_at ASC').all(id) as SqliteIdentityRow[];
    return sqlitePeople(rows, identities)[0]!;
  }
  const row = await store.db.person.findUnique({ where: { id }, include: withIdentities });
  return row ? personRecord(row) : null;
}

/** The person a channel sender is, if they were ever paired. */
export async function findPersonBySender(sender: string): Promise<PersonRecord | null> {
  const identity = await (await getDb()).personIdentity.findUnique({ where: { sender }, select: { personId: true } });
  return identity ? findPerson(identity.personId) : null;
}

/** The sender's person, made (with `role`) the first time they are paired. */
export async function personForSender(input: { sender: string; name: string; role?: PersonRole }): Promise<PersonRecord> {
  const known = await findPersonBySender(input.sender);
  if (known) return known;
  const db = await getDb();
  const id = randomUUID();
  const kind = input.sender.slice(0, Math.max(0, input.sender.indexOf(':'))) || 'channel';
  try {
    await db.$transaction([
      db.person.create({ data: { id, name: input.name.slice(0, 200), role: input.role ?? 'guest' } }),
      db.personIdentity.create({ data: { id: randomUUID(), personId: id, kind, sender: input.sender, name: input.name.slice(0, 200) } }),
    ]);
  } catch (error) {
    // Paired at the same moment elsewhere: theirs stands.
    if ((error as { code?: string }).code !== 'P2002') throw error;
  }
  return (await findPersonBySender(input.sender))!;
}

/** A sender's identity given to a person already known (the owner said who this is); theirs if it already was. */
export async function addIdentity(input: { personId: string; sender: string; name: string }): Promise<PersonRecord> {
  const kind = input.sender.slice(0, Math.max(0, input.sender.indexOf(':'))) || 'channel';
  await (await getDb()).personIdentity.upsert({
    where: { sender: input.sender },
    create: { id: randomUUID(), personId: input.personId, kind, sender: input.sender, name: input.name.slice(0, 200) },
    update: {},
  });
  return (await findPersonBySender(input.sender))!;
}

/** A person without an identity yet (one to merge channel identities into), their limits in the same write. */
export async function createPerson(input: { name: string; role: PersonRole; limits?: PersonLimits | null }): Promise<PersonRecord> {
  const id = randomUUID();
  await (await getDb()).person.create({ data: { id, name: input.name, role: input.role, ...(input.limits && { limits: JSON.stringify(input.limits) }) } });
  return (await findPerson(id))!;
}

export async function updatePerson(id: string, patch: { name?: string; role?: PersonRole; limits?: PersonLimits | null; rights?: StoredRights | null }): Promise<PersonRecord | null> {
  const { count } = await (await getDb()).person.updateMany({
    where: { id },
    data: {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.role !== undefined && { role: patch.role }),
      ...(patch.limits !== undefined && { limits: patch.limits === null ? null : JSON.stringify(patch.limits) }),
      ...(patch.rights !== undefined && { rights: patch.rights === null ? null : JSON.stringify(patch.rights) }),
    },
  });
  return count === 1 ? findPerson(id) : null;
}

/** Forgets a person: their identities, their bindings (they are strangers again) and their seats in sessions. */
export async function deletePerson(id: string): Promise<boolean> {
  return (await (await getDb()).person.deleteMany({ where: { id } })).count > 0;
}

/** One person with two identities: `from`'s identities, bindings and sessions become `into`'s, and `from` goes. */
export async function mergePeople(intoId: string, fromId: string): Promise<PersonRecord | null> {
  const db = await getDb();
  await db.$transaction(async (tx) => {
    await tx.personIdentity.updateMany({ where: { personId: fromId }, data: { personId: intoId } });
    await tx.channelBinding.updateMany({ where: { personId: fromId }, data: { personId: intoId } });
    // Their passkeys and notifying devices are the merged person's now (their signed-in browsers sign in again).
    await tx.passkey.updateMany({ where: { personId: fromId }, data: { personId: intoId } });
    await tx.pushSubscription.updateMany({ where: { personId: fromId }, data: { personId: intoId } });
    const seats = await tx.sessionPerson.findMany({ where: { personId: fromId }, select: { sessionId: true } });
    for (const { sessionId } of seats) {
      await tx.sessionPerson.upsert({ where: { sessionId_personId: { sessionId, personId: intoId } }, create: { sessionId, personId: intoId }, update: {} });
    }
    await tx.person.delete({ where: { id: fromId } });
  });
  return findPerson(intoId);
}

/** The people a session's conversation belongs to. */
export async function sessionPeople(sessionId: string): Promise<string[]> {
  const store = await getStore();
  // Asked by the rights authority on every entry (a page's, a door's, a channel's message).
  if (store.kind === 'sqlite') return (statement(rawDb(), 'SELECT person_id FROM session_people WHERE session_id = ? ORDER BY joined_at ASC').all(sessionId) as { person_id: string }[]).map((row) => row.person_id);
  const rows = await store.db.sessionPerson.findMany({ where: { sessionId }, select: { personId: true }, orderBy: { joinedAt: 'asc' } });
  return rows.map((row) => row.personId);
}

export async function addSessionPeople(sessionId: string, personIds: readonly string[]): Promise<void> {
  const db = await getDb();
  for (const personId of new Set(personIds)) {
    await db.sessionPerson.upsert({ where: { sessionId_personId: { sessionId, personId } }, create: { sessionId, personId }, update: {} });
  }
  await wordsMayHaveChanged([sessionId]);
}

/** Told when whose words a session's pages may read could have changed: the privacy switch (all), people joining one. */
export type WordsListener = (sessions: readonly string[] | 'all') => Promise<void> | void;
const wordsListeners = processSlot('store.words-listeners', () => new Set<WordsListener>()).value;

/** Listens for changes of the words rule (the socket server moves open pages at once); returns the unsubscribe. */
export function onWordsChanged(listener: WordsListener): () => void {
  wordsListeners.add(listener);
  return () => wordsListeners.delete(listener);
}

/** Waits for every listener: the write's caller (the privacy route) answers once open pages have moved. */
async function wordsMayHaveChanged(sessions: readonly string[] | 'all'): Promise<void> {
  await Promise.all([...wordsListeners].map(async (listener) => listener(sessions)));
}

/** The person's most recently active session of the persona in this state (their own conversation with it). */
export async function personalSession(input: { personId: string; persona: string; status: 'active' | 'paused' }): Promise<string | null> {
  const row = await (await getDb()).session.findFirst({
    where: { personaName: input.persona, status: input.status, people: { some: { personId: input.personId } } },
    orderBy: { lastActivityAt: 'desc' },
    select: { id: true },
  });
  return row?.id ?? null;
}

/** The people of a session, whole, and whether it is a group's: what the rights authority reads once per turn (two statements). */
export async function conversationPeople(sessionId: string): Promise<{ people: PersonRecord[]; group: boolean }> {
  const store = await getStore();
  // On SQLite statements prepared once (raw-db.ts): every turn's toolbox asks this first.
  if (store.kind === 'sqlite') return conversationPeopleSqlite(sessionId);
  const [seats, groups] = await Promise.all([
    store.db.sessionPerson.findMany({ where: { sessionId }, select: { person: { include: withIdentities } }, orderBy: { joinedAt: 'asc' } }),
    store.db.channelGroup.count({ where: { sessionId } }),
  ]);
  return { people: seats.map((seat) => personRecord(seat.person)), group: groups > 0 };
}

interface SqlitePersonRow {
  id: string;
  name: string;
  role: string;
  limits: string | null;
  rights: string | null;
  created_at: string | number;
}

interface SqliteIdentityRow {
  id: string;
  person_id: string;
  kind: string;
  sender: string;
  name: string;
  created_at: string | number;
}

/** People read on the direct connection, each with their identities (oldest first). */
function sqlitePeople(rows: readonly SqlitePersonRow[], identities: readonly SqliteIdentityRow[]): PersonRecord[] {
  return rows.map((row) =>
    personRecord({
      ...row,
      createdAt: sqliteDateOf(row.created_at),
      identities: identities.filter((identity) => identity.person_id === row.id).map(({ id, kind, sender, name, created_at }) => ({ id, kind, sender, name, createdAt: sqliteDateOf(created_at) })),
    }),
  );
}

function conversationPeopleSqlite(sessionId: string): { people: PersonRecord[]; group: boolean } {
  const raw = rawDb();
  const rows = statement(raw, 'SELECT p.id, p.name, p.role, p.limits, p.rights, p.created_at FROM session_people sp JOIN people p ON p.id = sp.person_id WHERE sp.session_id = ? ORDER BY sp.joined_at ASC').all(sessionId) as SqlitePersonRow[];
  const group = (statement(raw, 'SELECT EXISTS (SELECT 1 FROM channel_groups WHERE session_id = ?) AS found').get(sessionId) as { found: number }).found === 1;
  if (rows.length === 0) return { people: [], group };
  const identities = statement(
    raw,
    'SELECT i.id, i.person_id, i.kind, i.sender, i.name, i.created_at FROM person_identities i WHERE i.person_id IN (SELECT person_id FROM session_people WHERE session_id = ?) ORDER BY i.created_at ASC',
  ).all(sessionId) as SqliteIdentityRow[];
  return { people: sqlitePeople(rows, identities), group };
}

/**
 * What a conversation may read of its persona's sessions (issue 42), in one query: `readable` are
 * the sessions whose people are all people of `sessionId` (or that have none); null when that is
 * every session of the persona — nothing to filter, the common case of one person.
 */
export async function readableSessions(persona: string, sessionId: string): Promise<{ readable: string[]; beyond: Set<string> } | null> {
  const store = await getStore();
  // On SQLite a statement prepared once (raw-db.ts): this runs before every recall.
  const rows =
    store.kind === 'sqlite'
      ? (statement(rawDb(), `SELECT s.id, ${FOREIGN_SQL('?')} AS "foreign" FROM sessions s WHERE s.persona_name = ?`).all(sessionId, persona) as { id: string; foreign: number }[])
      : await store.db.$queryRawUnsafe<{ id: string; foreign: number }[]>(`SELECT s.id, ${FOREIGN_SQL('$1')} AS "foreign" FROM sessions s WHERE s.persona_name = $2`, sessionId, persona);
  const beyond = new Set(rows.filter((row) => Number(row.foreign) === 1).map((row) => row.id));
  if (beyond.size === 0) return null;
  return { readable: rows.filter((row) => !beyond.has(row.id)).map((row) => row.id), beyond };
}

/** 1 when session `s` has someone who is not among the people of the session given as `param`. */
const FOREIGN_SQL = (param: string) =>
  `CASE WHEN EXISTS (SELECT 1 FROM session_people sp WHERE sp.session_id = s.id AND sp.person_id NOT IN (SELECT mine.person_id FROM session_people mine WHERE mine.session_id = ${param})) THEN 1 ELSE 0 END`;

/** The people of each of these sessions (what a memory's conversation was, on the owner's Memory page). */
export async function peopleOfSessions(sessionIds: readonly string[]): Promise<Map<string, { id: string; name: string; role: string }[]>> {
  const rows = await (await getDb()).sessionPerson.findMany({
    where: { sessionId: { in: [...new Set(sessionIds)] } },
    select: { sessionId: true, person: { select: { id: true, name: true, role: true } } },
    orderBy: { joinedAt: 'asc' },
  });
  const bySession = new Map<string, { id: string; name: string; role: string }[]>();
  for (const row of rows) bySession.set(row.sessionId, [...(bySession.get(row.sessionId) ?? []), row.person]);
  return bySession;
}

/** Messages a day a person may send when the owner set none (issue 42 §6): guests little, the owner no limit. */
export const DEFAULT_MESSAGES_PER_DAY: Readonly<Record<PersonRole, number | null>> = { owner: null, trusted: 500, guest: 50 };

/** The UTC day a message counts on. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Takes one of the person's messages of the day if fewer than `limit` were taken (one statement:
 * parallel requests cannot overshoot together); false when the day's are used up.
 */
export async function takeDailyMessage(input: { personId: string; limit: number; now: Date }): Promise<boolean> {
  if (input.limit <= 0) return false;
  const store = await getStore();
  const sql = (p: (n: number) => string) =>
    `INSERT INTO person_message_days (person_id, day, messages) VALUES (${p(1)}, ${p(2)}, 1)
     ON CONFLICT (person_id, day) DO UPDATE SET messages = person_message_days.messages + 1 WHERE person_message_days.messages < ${p(3)}
     RETURNING messages`;
  const day = utcDay(input.now);
  const rows =
    store.kind === 'sqlite'
      ? (statement(rawDb(), sql(() => '?')).all(input.personId, day, input.limit) as unknown[])
      : await store.db.$queryRawUnsafe<unknown[]>(sql((n) => `$${n}`), input.personId, day, input.limit);
  return rows.length > 0;
}

/** How many messages the person sent today (UTC), whatever the entry. */
export async function messagesToday(personId: string, now: Date): Promise<number> {
  const row = await (await getDb()).personMessageDay.findUnique({ where: { personId_day: { personId, day: utcDay(now) } } });
  return row?.messages ?? 0;
}

/** The person's messages a day: the owner's figure for them, else their role's (null: no limit). */
export function dailyMessageLimit(person: Pick<PersonRecord, 'role' | 'limits'>): number | null {
  return person.limits?.messages_per_day ?? DEFAULT_MESSAGES_PER_DAY[person.role];
}

/** The sessions a person is in, newest activity first (the People page). */
export async function sessionsOfPerson(personId: string): Promise<{ id: string; name: string; persona: string; status: string; lastActivityAt: Date }[]> {
  const rows = await (await getDb()).sessionPerson.findMany({
    where: { personId },
    select: { session: { select: { id: true, name: true, personaName: true, status: true, lastActivityAt: true } } },
    orderBy: { session: { lastActivityAt: 'desc' } },
    take: 200,
  });
  return rows.map(({ session }) => ({ id: session.id, name: session.name, persona: session.personaName, status: session.status, lastActivityAt: session.lastActivityAt }));
}

/** How many memories came from the conversations a person is in (shared ones aside). */
export async function memoriesOfPerson(personId: string): Promise<number> {
  const db = await getDb();
  const seats = await db.sessionPerson.findMany({ where: { personId }, select: { sessionId: true } });
  return db.memory.count({ where: { shared: false, validTo: null, sessionId: { in: seats.map((seat) => seat.sessionId) } } });
}

/**
 * The personas the owner gave this person (issues 72 §2.4, 75 §4): those given on People, and each
 * chat of theirs the owner bound to a persona or to a session (its persona). Not the sessions that happen to exist: a session the
 * person opened themselves grants nothing more.
 */
export async function grantedPersonas(person: Pick<PersonRecord, 'id' | 'limits'>): Promise<Set<string>> {
  const bindings = await (await getDb()).channelBinding.findMany({ where: { personId: person.id }, select: { persona: true, session: { select: { personaName: true } } } });
  return new Set([...(person.limits?.personas ?? []), ...bindings.flatMap((row) => [row.persona, row.session?.personaName].filter((name): name is string => Boolean(name)))]);
}

/** The household's choice (issue 61 §6): the owner's pages show that people's conversations exist, their cost and cards, not their words. */
export interface PeoplePrivacy {
  words_stay_private: boolean;
}

const privacySchema = z.object({ words_stay_private: z.boolean() }).strict();

export async function readPeoplePrivacy(): Promise<PeoplePrivacy> {
  return readJsonSetting('people_privacy', privacySchema, 'people privacy', { words_stay_private: false });
}

export async function writePeoplePrivacy(privacy: PeoplePrivacy): Promise<void> {
  await writeJsonSetting('people_privacy', privacySchema.parse(privacy));
  await wordsMayHaveChanged('all');
}

/** Of these sessions, those with someone besides the owner in them. */
export async function sessionsWithOthers(sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await (await getDb()).sessionPerson.findMany({ where: { sessionId: { in: [...new Set(sessionIds)] }, personId: { not: OWNER_ID } }, select: { sessionId: true } });
  return new Set(rows.map((row) => row.sessionId));
}
