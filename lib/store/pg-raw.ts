// PostgreSQL's twin of raw-db.ts (issue 31 §3): a pool of its own on the store's database for the
// writes on a turn's path, each a named statement the driver prepares once per connection, and
// each commit point ONE statement (data-modifying CTEs run atomically in one round trip) — where
// the model API spends a round trip per statement plus BEGIN and COMMIT.
import pg from 'pg';
import { reportPoolErrors } from './pg-errors';
import { processSlot } from '@/lib/process/process-state';

interface PgHolder {
  url: string;
  pool: pg.Pool;
}

const pgSlot = processSlot<PgHolder | undefined>('store.pg-raw', () => undefined);

/** The pool for this database; call after getStore() (which migrates it). */
export function pgRaw(url: string): pg.Pool {
  const held = pgSlot.value;
  if (held && held.url === url) return held.pool;
  if (held) void held.pool.end().catch(() => undefined);
  const pool = reportPoolErrors(new pg.Pool({ connectionString: url, max: 4 }), (message) => console.error('[store] a direct PostgreSQL connection was lost', message));
  pgSlot.value = { url, pool };
  return pool;
}

/** A named (prepared once per connection) statement. */
export function pgQuery<Row extends pg.QueryResultRow = pg.QueryResultRow>(pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
  return pool.query<Row>({ name, text, values });
}

/** How Prisma keeps a DateTime in a `timestamp(3)` column: UTC, without a zone. */
export function pgDate(date: Date | null): string | null {
  return date ? date.toISOString().replace('Z', '') : null;
}

export async function closePgRaw(): Promise<void> {
  const held = pgSlot.value;
  pgSlot.value = undefined;
  await held?.pool.end().catch(() => undefined);
}
