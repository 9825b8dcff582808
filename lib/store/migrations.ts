// Applies prisma/migrations/*/migration.sql at start-up, recording each in Prisma's own
// `_prisma_migrations` table so `prisma migrate status` agrees on machines that have the engine.
// (Prisma 7's migrate commands need a native engine that cannot be downloaded offline.)
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sha256Hex } from '@/lib/security/digest';

const createMigrationsTable = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: number | string | null;
  rolled_back_at: number | string | null;
}

export function defaultMigrationsDir(): string {
  return path.resolve(process.cwd(), 'prisma', 'migrations');
}

export function listMigrations(migrationsDir: string): { name: string; sql: string; checksum: string }[] {
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: sha256Hex(sql) };
    });
}

/** Opens (creating if needed) the database file, sets WAL, and applies pending migrations. */
export function migrateDatabase(options: { databaseFile: string; migrationsDir?: string }): MigrationResult {
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir();
  fs.mkdirSync(path.dirname(options.databaseFile), { recursive: true, mode: 0o700 });
  const database = new Database(options.databaseFile, { timeout: 5000 });
  try {
    fs.chmodSync(options.databaseFile, 0o600);
    database.pragma('journal_mode = WAL');
    database.exec(createMigrationsTable);
    const rows = database
      .prepare('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"')
      .all() as MigrationRow[];
    const live = rows.filter((row) => row.rolled_back_at === null);
    const failed = live.find((row) => row.finished_at === null);
    if (failed) {
      throw new Error(
        `Migration ${failed.migration_name} failed earlier and left the database half-migrated; restore a backup of ${options.databaseFile}.`,
      );
    }
    const done = new Map(live.map((row) => [row.migration_name, row.checksum]));
    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const migration of listMigrations(migrationsDir)) {
      const appliedChecksum = done.get(migration.name);
      if (appliedChecksum !== undefined) {
        if (appliedChecksum !== migration.checksum) {
          console.warn(`[migrations] ${migration.name} was modified after it was applied`);
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      const id = randomUUID();
      // Prisma's SQLite engine stores these timestamps as Unix milliseconds.
      const apply = database.transaction(() => {
        database
          .prepare(
            'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, 0)',
          )
          .run(id, migration.checksum, migration.name, Date.now());
        database.exec(migration.sql);
        database
          .prepare('UPDATE "_prisma_migrations" SET finished_at = ?, applied_steps_count = 1 WHERE id = ?')
          .run(Date.now(), id);
      });
      apply.immediate();
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    database.close();
  }
}
