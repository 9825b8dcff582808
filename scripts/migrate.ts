// `npm run db:migrate`: applies pending migrations to the configured store (also done at start-up):
// the SQLite file in the data folder, or the PostgreSQL AGENTCSD_DATABASE_URL names.
import { appPaths, readEnv } from '../lib/config/env';
import { redactUrl } from '../lib/engine/create-engine';
import { migrateDatabase } from '../lib/store/migrations';
import { migratePostgres } from '../lib/store/postgres-db';

const url = readEnv().AGENTCSD_DATABASE_URL;
const result = url ? await migratePostgres(url) : migrateDatabase({ databaseFile: appPaths().databaseFile });
console.log(`Database: ${url ? redactUrl(url) : appPaths().databaseFile}`);
console.log(result.applied.length ? `Applied: ${result.applied.join(', ')}` : 'Already up to date.');
