// DBOS's connections to its system database (issue 73 §9): every start printed pg's
// DeprecationWarning "Calling client.query() when the client is already executing a query",
// because DBOS set the idle-in-transaction timeout with a query of its own on each new connection,
// overlapping the borrower's first. The engine gives the timeout as a startup option instead: same
// protection, no overlapping queries. A real PostgreSQL and a real DBOS launch with runs.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbosEngine, withIdleTransactionTimeout } from '@/lib/engine/dbos-engine';
import type { WorkflowContext } from '@/lib/engine/execution-engine';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';

let database: TestPostgres;
beforeAll(async () => {
  database = await startPostgres();
}, 60_000);
afterAll(async () => {
  await database?.stop();
});

describe("DBOS's system database connections", () => {
  it('carry the idle-in-transaction timeout from the start, and no query overlaps another', async () => {
    const warnings: string[] = [];
    const hear = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', hear);
    const engine = new DbosEngine({ systemDatabaseUrl: database.url, executorId: 'quiet-start' });
    const steps = engine.define('connections.steps', async (context: WorkflowContext, n: number) => {
      let total = 0;
      for (let index = 0; index < n; index++) total += await context.step(`add-${index}`, async () => index);
      return total;
    });
    try {
      await engine.launch();
      // Several runs at once: DBOS's pool opens new connections while others are busy.
      expect(await Promise.all([1, 2, 3, 4].map((run) => engine.start(`connections-${run}`, steps, 5)))).toEqual([10, 10, 10, 10]);
    } finally {
      await engine.shutdown();
      process.off('warning', hear);
    }
    expect(warnings.filter((warning) => /already executing a query/.test(warning))).toEqual([]);

    const client = new pg.Client({ connectionString: withIdleTransactionTimeout(database.url) });
    await client.connect();
    try {
      expect((await client.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('1min');
    } finally {
      await client.end();
    }
  }, 60_000);

  it('keep an operator’s own options and timeout', () => {
    expect(withIdleTransactionTimeout('postgres://u@h:5432/db?options=-c%20search_path%3Dx')).toBe('postgres://u@h:5432/db?options=-c+search_path%3Dx+-c+idle_in_transaction_session_timeout%3D60000');
    const own = 'postgres://u@h:5432/db?options=-c%20idle_in_transaction_session_timeout%3D5000';
    expect(withIdleTransactionTimeout(own)).toBe(own);
  });
});
