// A second connection to the same database file, through better-sqlite3 directly, for the few
// writes on a tool step's path: Prisma's adapter prepares every statement anew (a third of a
// step's CPU in the profile), here each statement is prepared once. Both connections use WAL, so
// reads never wait; writes take turns. This connection never waits for the write lock with
// SQLite's busy timeout: that wait is synchronous, and the lock is held by Prisma's connection
// across an await — a transaction that can only finish once the event loop turns again — so the
// whole process stood still until the timeout ran out (5 s, the timers of every session late by
// as much). `rawWrite` retries a busy write after yielding instead. Repositories alone use it.
import Database from 'better-sqlite3';
import { appPaths } from '@/lib/config/env';
import { processSlot } from '@/lib/process/process-state';

interface RawHolder {
  file: string;
  database: Database.Database;
  statements: Map<string, Database.Statement>;
}

const rawSlot = processSlot<RawHolder | undefined>('store.raw-db', () => undefined);

/** The connection for this data folder; call after getDb() (which creates and migrates the file). */
export function rawDb(): RawHolder {
  const file = appPaths().databaseFile;
  const held = rawSlot.value;
  if (held && held.file === file && held.database.open) return held;
  if (held?.database.open) held.database.close();
  const database = new Database(file, { timeout: 0 });
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('secure_delete = ON');
  const holder = { file, database, statements: new Map<string, Database.Statement>() };
  rawSlot.value = holder;
  return holder;
}

/** How long a write keeps trying for the lock before it fails (as the busy timeout did). */
const BUSY_GIVE_UP_MS = 10_000;

/**
 * Runs a write (a statement or a transaction) on this connection; SQLITE_BUSY — the other
 * connection holds the write lock — is retried after a pause that lets the event loop, and so the
 * holder, go on: 1 ms, then longer, up to 20 ms between tries. A transaction is rolled back by
 * better-sqlite3 when it throws, so trying it again is safe.
 */
export async function rawWrite<T>(write: () => T): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return write();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || Date.now() - started > BUSY_GIVE_UP_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(20, 1 + attempt)));
    }
  }
}

/** A statement prepared once per connection. */
export function statement(holder: RawHolder, sql: string): Database.Statement {
  let prepared = holder.statements.get(sql);
  if (!prepared) {
    prepared = holder.database.prepare(sql);
    holder.statements.set(sql, prepared);
  }
  return prepared;
}

/** How Prisma stores a DateTime in SQLite: ISO 8601 text with an explicit offset. */
export function sqliteDate(date: Date | null): string | null {
  return date ? date.toISOString().replace('Z', '+00:00') : null;
}

/** A DateTime column read on this connection: Prisma's text, a number of ms, or SQLite's CURRENT_TIMESTAMP (UTC). */
export function sqliteDateOf(value: string | number): Date {
  if (typeof value === 'number') return new Date(value);
  return new Date(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
}

export function closeRawDb(): void {
  const held = rawSlot.value;
  rawSlot.value = undefined;
  if (held?.database.open) held.database.close();
}
