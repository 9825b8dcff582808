// Where untrusted content entered (ARCHITECTURE §20, issue 44): the mark of the turn whose prompt
// holds it, the user's trusted hosts and servers (one settings row), and the provenance each stored
// message carries. A session is not marked for good: each turn starts clean and is marked by what
// its own prompt holds (a message it answers, a recalled piece, a result it reads).
import { emptyTrust, trustSettingsSchema, type TrustSettings } from '@/lib/config/trust-config';
import { getDb, getStore } from './db';
import { pgQuery, pgRaw } from './pg-raw';
import { rawDb, statement } from './raw-db';
import { sqlRun } from './sql';
import { readJsonSetting, writeJsonSetting } from './settings-repository';

export function readTrust(): Promise<TrustSettings> {
  return readJsonSetting('trust', trustSettingsSchema, 'trusted sources', emptyTrust);
}

export function writeTrust(trust: TrustSettings): Promise<void> {
  return writeJsonSetting('trust', trust);
}

/**
 * Records that the running turn's prompt holds untrusted content (the first source is kept): its
 * calls that send data out ask, and what it writes is stored with the source. True when new.
 */
export async function markSessionUntrusted(sessionId: string, source: string): Promise<boolean> {
  // One statement: nothing to read when the turn is already marked (most calls).
  const changed = await sqlRun('UPDATE sessions SET untrusted_source = ? WHERE id = ? AND untrusted_source IS NULL', [source.slice(0, 500), sessionId]);
  return changed > 0;
}

/** A new turn starts clean: what earlier turns read is withheld from its prompt (mind-memory.ts). */
export async function startCleanTurn(sessionId: string): Promise<void> {
  await sqlRun('UPDATE sessions SET untrusted_source = NULL WHERE id = ? AND untrusted_source IS NOT NULL', [sessionId]);
}

/**
 * Read on every tool step that would send data out and every turn's recall: prepared once per
 * connection on both stores (on PostgreSQL a named statement on the direct pool, as the turn's other
 * hot reads) — issue 44's benchmark row.
 */
export async function sessionUntrustedSource(sessionId: string): Promise<string | null> {
  const store = await getStore();
  if (store.kind === 'postgres') {
    const { rows } = await pgQuery<{ untrusted_source: string | null }>(pgRaw(store.url), 'session_untrusted_source', 'SELECT untrusted_source FROM sessions WHERE id = $1', [sessionId]);
    return rows[0]?.untrusted_source ?? null;
  }
  const row = statement(rawDb(), 'SELECT untrusted_source FROM sessions WHERE id = ?').get(sessionId) as { untrusted_source: string | null } | undefined;
  return row?.untrusted_source ?? null;
}

/**
 * The owner has read the session and vouches for what is in it: the turn's mark goes, and its
 * messages and summaries count as the owner's own from now on (in prompts and where recalled).
 */
export async function clearSessionUntrusted(sessionId: string): Promise<boolean> {
  const db = await getDb();
  const [session, messages, summaries] = await db.$transaction([
    db.session.updateMany({ where: { id: sessionId, untrustedSource: { not: null } }, data: { untrustedSource: null } }),
    db.message.updateMany({ where: { sessionId, untrustedSource: { not: null } }, data: { untrustedSource: null } }),
    db.contextSummary.updateMany({ where: { sessionId, untrustedSource: { not: null } }, data: { untrustedSource: null } }),
  ]);
  return session.count + messages.count + summaries.count > 0;
}

/** Per message, why it is untrusted content — written from untrusted content, with the session it is in — or null. */
export async function untrustedMessageSources(messages: readonly { id: number }[]): Promise<(string | null)[]> {
  if (messages.length === 0) return [];
  const ids = messages.map((message) => message.id);
  const store = await getStore();
  type Marked = { id: number; name: string; untrusted_source: string };
  const rows: Marked[] =
    store.kind === 'postgres'
      ? (await pgQuery<Marked>(pgRaw(store.url), 'marked_messages', 'SELECT m.id, s.name, m.untrusted_source FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id = ANY($1::int[]) AND m.untrusted_source IS NOT NULL', [ids])).rows
      : (statement(rawDb(), 'SELECT m.id, s.name, m.untrusted_source FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id IN (SELECT value FROM json_each(?)) AND m.untrusted_source IS NOT NULL').all(JSON.stringify(ids)) as Marked[]);
  const marked = new Map(rows.map((row) => [Number(row.id), row]));
  return messages.map((message) => {
    const row = marked.get(message.id);
    return row ? `a message of the session "${row.name}", written after it read ${row.untrusted_source}` : null;
  });
}
