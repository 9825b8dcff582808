// A real SQLite "database or disk is full" (SQLITE_FULL): a database capped at its page count is
// given a row it has no room for. What a full disk makes of a write, without filling a disk.
import Database from 'better-sqlite3';

export function realDiskFullError(): Error {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (x TEXT)');
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  try {
    db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
  } catch (error) {
    return error as Error;
  } finally {
    db.close();
  }
  throw new Error('the capped database took the row');
}
