// The one Prisma client, cached on globalThis: server.ts and the Next-bundled route handlers load
// separate module instances, and both must share one connection to the same database file.
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { appPaths } from '@/lib/config/env';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { migrateDatabase } from './migrations';
import { closeRawDb } from './raw-db';

export type Db = InstanceType<typeof PrismaClient>;

interface DbHolder {
  file: string;
  client: Promise<Db>;
}

const globalForDb = globalThis as typeof globalThis & { __agentcsdDb?: DbHolder };

async function openDatabase(databaseFile: string): Promise<Db> {
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

/** The migrated database for the configured data folder. */
export function getDb(): Promise<Db> {
  const file = appPaths().databaseFile;
  const held = globalForDb.__agentcsdDb;
  if (held && held.file === file) return held.client;
  const client = openDatabase(file);
  globalForDb.__agentcsdDb = { file, client };
  client.catch(() => {
    if (globalForDb.__agentcsdDb?.client === client) globalForDb.__agentcsdDb = undefined;
  });
  return client;
}

export async function closeDb(): Promise<void> {
  closeRawDb();
  const held = globalForDb.__agentcsdDb;
  globalForDb.__agentcsdDb = undefined;
  if (held) await (await held.client).$disconnect();
}
