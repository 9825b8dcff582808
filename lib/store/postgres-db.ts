// The same Prisma models on PostgreSQL (issue 19, first part of "the store on PostgreSQL"): the
// client generated from prisma/postgres/schema.prisma (the SQLite schema with its provider
// changed, scripts/postgres-schema.ts) over `@prisma/adapter-pg`, and the migrations of
// prisma/postgres/migrations applied the way the SQLite runner applies its own (recorded in
// Prisma's `_prisma_migrations`). PostgreSQL DDL is transactional: a migration that fails leaves
// nothing. Several processes starting at once take turns on an advisory lock (DBOS's own schema
// migration deadlocks without one). The repositories reach it through getStore() (db.ts).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '@/lib/generated/prisma-pg/client';
import { listMigrations, type MigrationResult } from './migrations';
import { quietClient } from './pg-errors';
import { errorText } from '@/lib/errors/error-text';

export type PostgresDb = InstanceType<typeof PrismaClient>;

/** Any fixed number: the lock every AgentCSD process takes while it migrates. */
const MIGRATION_LOCK = 0x61_67_63_73; // "agcs"

export function postgresMigrationsDir(): string {
  return path.resolve(process.cwd(), 'prisma', 'postgres', 'migrations');
}

/** Connects; a database that does not exist yet is created first, when the role may (as DBOS does for its own). */
export async function connectCreating(url: string): Promise<pg.Client> {
  const client = quietClient(new pg.Client({ connectionString: url }));
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    if ((error as { code?: string }).code !== '3D000') throw error; // invalid_catalog_name: no such database
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = quietClient(new pg.Client({ connectionString: maintenance.toString() }));
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04') throw error; // duplicate_database: another process made it
  } finally {
    await admin.end();
  }
  const created = quietClient(new pg.Client({ connectionString: url }));
  await created.connect();
  return created;
}

export async function migratePostgres(url: string, migrationsDir = postgresMigrationsDir()): Promise<MigrationResult> {
  const client = await connectCreating(url);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>('SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL');
    const done = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const migration of listMigrations(migrationsDir)) {
      const applied = done.get(migration.name);
      if (applied !== undefined) {
        if (applied !== migration.checksum) console.warn(`[migrations] ${migration.name} was modified after it was applied`);
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ($1, $2, $3, now(), 1)', [randomUUID(), migration.checksum, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${migration.name} failed and changed nothing: ${errorText(error)}`, { cause: error });
      }
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

/** Migrates, then opens the Prisma client on the database. */
export async function openPostgresDb(url: string): Promise<PostgresDb> {
  await migratePostgres(url);
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
}
