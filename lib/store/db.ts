// The one Prisma client, kept in the process state (lib/process): server.ts and the Next-bundled route handlers load
// separate module instances, and both must share one connection to the same database.
// The store is SQLite in the data folder by default, PostgreSQL when AGENTCSD_DATABASE_URL names
// one (issue 19): the same models through the same repositories; the few statements written in
// SQL for speed or full-text search have a PostgreSQL path beside them (`getStore().kind`).
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { appPaths, readEnv } from '@/lib/config/env';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { migrateDatabase } from './migrations';
import type { PostgresDb } from './postgres-db';
import { closeRawDb } from './raw-db';
import { flushLlmCalls } from './llm-call-writer';
import { closePgRaw } from './pg-raw';
import { processSlot } from '@/lib/process/process-state';

export type Db = InstanceType<typeof PrismaClient>;

export type Store = { kind: 'sqlite'; db: Db } | { kind: 'postgres'; db: PostgresDb; url: string };

interface StoreHolder {
  /** The database file or URL it was opened for. */
  where: string;
  store: Promise<Store>;
}

const storeSlot = processSlot<StoreHolder | undefined>('store.store', () => undefined);

async function openSqlite(databaseFile: string): Promise<Db> {
  migrateDatabase({ databaseFile });
  const adapter = new PrismaBetterSqlite3({ url: `file:${databaseFile}`, timeout: 5000 });
  const client = new PrismaClient({ adapter });
  // WAL is persistent in the file; these are per connection. NORMAL survives process crashes.
  await client.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await client.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
  await client.$queryRawUnsafe('PRAGMA foreign_keys = ON');
  await client.$queryRawUnsafe('PRAGMA busy_timeout = 5000');
  // A deleted row's bytes are overwritten, not left in free pages (forgetting a memory, issue 17).
  await client.$queryRawUnsafe('PRAGMA secure_delete = ON');
  return client;
}

/** Where the store lives: `postgres` when AGENTCSD_DATABASE_URL is set. */
type StoreLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
const lastLocation = processSlot<{ url: string | undefined; paths: ReturnType<typeof appPaths>; location: StoreLocation } | null>('store.location', () => null);

/** Asked by every query: worked out again only when the variables it reads change. */
export function storeLocation(): StoreLocation {
  const url = process.env.AGENTCSD_DATABASE_URL;
  const paths = appPaths();
  const last = lastLocation.value;
  if (last && last.url === url && last.paths === paths) return last.location;
  const checked = readEnv().AGENTCSD_DATABASE_URL;
  const location: StoreLocation = checked ? { kind: 'postgres', url: checked } : { kind: 'sqlite', file: paths.databaseFile };
  lastLocation.value = { url, paths, location };
  return location;
}

/** The migrated store for the configured data folder or database. */
export function getStore(): Promise<Store> {
  const location = storeLocation();
  const where = location.kind === 'sqlite' ? location.file : location.url;
  const held = storeSlot.value;
  if (held && held.where === where) return held.store;
  const store: Promise<Store> =
    location.kind === 'sqlite' ? openSqlite(location.file).then((db) => ({ kind: 'sqlite', db })) : import('./postgres-db').then(({ openPostgresDb }) => openPostgresDb(location.url)).then((db) => ({ kind: 'postgres', db, url: location.url }));
  storeSlot.value = { where, store };
  store.catch(() => {
    if (storeSlot.value?.store === store) storeSlot.value = undefined;
  });
  return store;
}

/**
 * The store's client, typed as the SQLite one: the model API the repositories use is the same on
 * both (PostgreSQL's is a superset); code that needs PostgreSQL's own API asks getStore().
 */
export async function getDb(): Promise<Db> {
  return (await getStore()).db as unknown as Db;
}

export async function closeDb(): Promise<void> {
  closeRawDb();
  await flushLlmCalls();
  await closePgRaw();
  const held = storeSlot.value;
  storeSlot.value = undefined;
  if (held) await (await held.store).db.$disconnect();
}
