// Where untrusted content entered (ARCHITECTURE §20): the session's first untrusted source, the
// user's trusted hosts and servers (one settings row), and the sources behind recalled items.
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
 * Records that untrusted content entered the session (the first source is kept); true when it is
 * new. Its messages from the next one on carry the mark where they are recalled; those written
 * before stay trusted (issue 44). Every caller marks before it stores what the content leads to.
 */
export async function markSessionUntrusted(sessionId: string, source: string): Promise<boolean> {
  // One statement: nothing to read when the session is already marked (most calls), and no message slips in between.
  const changed = await sqlRun(
    'UPDATE sessions SET untrusted_source = ?, untrusted_from_message = COALESCE((SELECT MAX(id) FROM messages WHERE session_id = ?), 0) + 1 WHERE id = ? AND untrusted_source IS NULL',
    [source.slice(0, 500), sessionId, sessionId],
  );
  return changed > 0;
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

/** The user has read the session and vouches for what is in it: calls stop asking for this reason. */
export async function clearSessionUntrusted(sessionId: string): Promise<boolean> {
  const db = await getDb();
  return (await db.session.updateMany({ where: { id: sessionId }, data: { untrustedSource: null } })).count > 0;
}

/**
 * Per message, why it is untrusted content — written in its session after untrusted content
 * entered it — or null (written before, or the session holds none).
 */
export async function untrustedMessageSources(messages: readonly { id: number; sessionId: string }[]): Promise<(string | null)[]> {
  if (messages.length === 0) return [];
  const ids = [...new Set(messages.map((message) => message.sessionId))];
  const store = await getStore();
  type Marked = { id: string; name: string; untrusted_source: string; untrusted_from_message: number };
  const sessions: Marked[] =
    store.kind === 'postgres'
      ? (await pgQuery<Marked>(pgRaw(store.url), 'marked_sessions', 'SELECT id, name, untrusted_source, untrusted_from_message FROM sessions WHERE id = ANY($1::text[]) AND untrusted_source IS NOT NULL', [ids])).rows
      : (statement(rawDb(), 'SELECT id, name, untrusted_source, untrusted_from_message FROM sessions WHERE id IN (SELECT value FROM json_each(?)) AND untrusted_source IS NOT NULL').all(JSON.stringify(ids)) as Marked[]);
  const marked = new Map(sessions.map((session) => [session.id, { name: session.name, untrustedSource: session.untrusted_source, untrustedFromMessage: session.untrusted_from_message }]));
  return messages.map((message) => {
    const session = marked.get(message.sessionId);
    return session && message.id >= session.untrustedFromMessage ? `a message of the session "${session.name}", written after it read ${session.untrustedSource}` : null;
  });
}
