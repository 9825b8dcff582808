// A second connection to the same database file, through better-sqlite3 directly, for the few
// writes on a tool step's path: Prisma's adapter prepares every statement anew (a third of a
// step's CPU in the profile), here each statement is prepared once. Both connections use WAL
// and a busy timeout, so their writes simply take turns. Repositories alone use it.
import Database from 'better-sqlite3';
import { appPaths } from '@/lib/config/env';

interface RawHolder {
  file: string;
  database: Database.Database;
  statements: Map<string, Database.Statement>;
}

const globalForRaw = globalThis as typeof globalThis & { __agentcsdRawDb?: RawHolder };

/** The connection for this data folder; call after getDb() (which creates and migrates the file). */
export function rawDb(): RawHolder {
  const file = appPaths().databaseFile;
  const held = globalForRaw.__agentcsdRawDb;
  if (held && held.file === file && held.database.open) return held;
  if (held?.database.open) held.database.close();
  const database = new Database(file, { timeout: 5000 });
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('secure_delete = ON');
  const holder = { file, database, statements: new Map<string, Database.Statement>() };
  globalForRaw.__agentcsdRawDb = holder;
  return holder;
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

export function closeRawDb(): void {
  const held = globalForRaw.__agentcsdRawDb;
  globalForRaw.__agentcsdRawDb = undefined;
  if (held?.database.open) held.database.close();
}
