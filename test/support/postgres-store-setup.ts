// vitest's global setup for the `postgres` project: one PostgreSQL for the whole run (started in a
// temporary folder, test/support/postgres.ts); each test file gets a database of its own on it
// (useTempAppDirs), so the store tests run unchanged against PostgreSQL.
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresStoreUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const database = await startPostgres();
  project.provide('postgresStoreUrl', database.url);
  return () => database.stop();
}
