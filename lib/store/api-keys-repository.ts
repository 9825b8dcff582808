// Keys for the doors (issue 46, ARCHITECTURE §23). A key is `acsd_<id>_<secret>`: the id is looked
// up, the secret's sha256 compared in constant time, the secret itself shown once and never
// stored. Each key acts as one person on the personas it names; per persona it talks to one
// session of its own (made on first use), which remembers what it last delivered.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { getDb, getStore } from './db';
import { rawDb, rawWrite, sqliteDateOf, statement } from './raw-db';

export interface ApiKeyRecord {
  id: string;
  name: string;
  hint: string;
  personId: string;
  personas: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface ApiKeyJson {
  id: string;
  name: string;
  hint: string;
  person_id: string;
  personas: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const KEY = /^acsd_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest();

type Row = { id: string; name: string; hint: string; personId: string; personas: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };
const toRecord = (row: Row): ApiKeyRecord => ({ ...row, personas: JSON.parse(row.personas) as string[] });

export function apiKeyJson(key: ApiKeyRecord): ApiKeyJson {
  return {
    id: key.id,
    name: key.name,
    hint: key.hint,
    person_id: key.personId,
    personas: key.personas,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

/** A new key; its secret is in the answer and nowhere else. */
export async function createApiKey(input: { name: string; personId: string; personas: string[] }): Promise<{ key: ApiKeyRecord; secret: string }> {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const row = await (await getDb()).apiKey.create({
    data: { id, name: input.name, secretHash: sha256(secret).toString('hex'), hint: secret.slice(-4), personId: input.personId, personas: JSON.stringify([...new Set(input.personas)].sort()) },
  });
  return { key: toRecord(row), secret: `acsd_${id}_${secret}` };
}

export async function listApiKeys(personId?: string): Promise<ApiKeyRecord[]> {
  const rows = await (await getDb()).apiKey.findMany({ where: personId ? { personId } : {}, orderBy: { createdAt: 'desc' } });
  return rows.map(toRecord);
}

/** Revoked at once: the next request with it is refused. False for an unknown or already revoked key. */
export async function revokeApiKey(id: string, personId?: string): Promise<boolean> {
  const { count } = await (await getDb()).apiKey.updateMany({ where: { id, revokedAt: null, ...(personId && { personId }) }, data: { revokedAt: new Date() } });
  return count > 0;
}

/** The live key this bearer token is, or null (malformed, unknown, wrong secret, revoked); its last use is noted. */
export async function authenticateApiKey(token: string): Promise<ApiKeyRecord | null> {
  const match = KEY.exec(token);
  // A malformed or unknown key costs the same hash and comparison as a known one.
  const row = match ? await keyRow(match[1]!) : null;
  const expected = row ? Buffer.from(row.secretHash, 'hex') : sha256('no such key');
  const same = timingSafeEqual(expected, sha256(match?.[2] ?? ''));
  if (!row || !same || row.revokedAt) return null;
  const now = new Date();
  // Noted at most once a minute: the door's hot path writes nothing else.
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await (await getDb()).apiKey.update({ where: { id: row.id }, data: { lastUsedAt: now } });
    row.lastUsedAt = now;
  }
  return toRecord(row);
}

export interface KeySession {
  sessionId: string;
  lastConversation: string | null;
  lastMessageId: number | null;
}

export async function findKeySession(keyId: string, personaName: string): Promise<KeySession | null> {
  const store = await getStore();
  if (store.kind === 'sqlite') {
    const row = statement(rawDb(), 'SELECT session_id AS sessionId, last_conversation AS lastConversation, last_message_id AS lastMessageId FROM api_key_sessions WHERE key_id = ? AND persona_name = ?').get(keyId, personaName) as KeySession | undefined;
    return row ?? null;
  }
  const row = await store.db.apiKeySession.findUnique({ where: { keyId_personaName: { keyId, personaName } } });
  return row && { sessionId: row.sessionId, lastConversation: row.lastConversation, lastMessageId: row.lastMessageId };
}

/** A key's row by its public id: every door request asks it first (a statement prepared once on SQLite). */
async function keyRow(id: string): Promise<(Row & { secretHash: string }) | null> {
  const store = await getStore();
  if (store.kind !== 'sqlite') return store.db.apiKey.findUnique({ where: { id } });
  const row = statement(
    rawDb(),
    'SELECT id, name, secret_hash AS secretHash, hint, person_id AS personId, personas, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt FROM api_keys WHERE id = ?',
  ).get(id) as (Omit<Row, 'createdAt' | 'lastUsedAt' | 'revokedAt'> & { secretHash: string; createdAt: string | number; lastUsedAt: string | number | null; revokedAt: string | number | null }) | undefined;
  if (!row) return null;
  const date = (value: string | number | null) => (value === null ? null : sqliteDateOf(value));
  return { ...row, createdAt: sqliteDateOf(row.createdAt), lastUsedAt: date(row.lastUsedAt), revokedAt: date(row.revokedAt) };
}

export async function saveKeySession(input: { keyId: string; personaName: string; sessionId: string; lastConversation?: string | null; lastMessageId?: number | null }): Promise<void> {
  const store = await getStore();
  if (store.kind === 'sqlite' && input.lastConversation !== undefined && input.lastMessageId !== undefined) {
    // Every door message ends here, while its reply starts: one prepared statement.
    await rawWrite(() =>
      statement(
        rawDb(),
        `INSERT INTO api_key_sessions (key_id, persona_name, session_id, last_conversation, last_message_id) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key_id, persona_name) DO UPDATE SET session_id = excluded.session_id, last_conversation = excluded.last_conversation, last_message_id = excluded.last_message_id`,
      ).run(input.keyId, input.personaName, input.sessionId, input.lastConversation, input.lastMessageId),
    );
    return;
  }
  const data = { sessionId: input.sessionId, ...(input.lastConversation !== undefined && { lastConversation: input.lastConversation }), ...(input.lastMessageId !== undefined && { lastMessageId: input.lastMessageId }) };
  await (await getDb()).apiKeySession.upsert({ where: { keyId_personaName: { keyId: input.keyId, personaName: input.personaName } }, create: { keyId: input.keyId, personaName: input.personaName, ...data }, update: data });
}
