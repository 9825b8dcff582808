import path from 'node:path';
import { defineConfig } from 'prisma/config';

// Prisma 7's CLI tries to download its schema engine for every command; `generate` does not
// need it, so point the variable at an existing file that fails loudly if it is ever run.
// Never /bin/true: `migrate deploy` would then report success and apply nothing.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/false';

const dataDir = path.resolve(process.env.AGENTCSD_DATA_DIR ?? 'data');

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: `file:${path.join(dataDir, 'agentcsd.db')}` },
});
