// `npm run db:migrate`: applies pending migrations to the configured database (also done at start-up).
import { appPaths } from '../lib/config/env';
import { migrateDatabase } from '../lib/store/migrations';

const { databaseFile } = appPaths();
const result = migrateDatabase({ databaseFile });
console.log(`Database: ${databaseFile}`);
console.log(result.applied.length ? `Applied: ${result.applied.join(', ')}` : 'Already up to date.');
