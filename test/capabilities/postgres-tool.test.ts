// tool.postgres against a real PostgreSQL the test starts on a loopback port in a temporary folder:
// reads in a READ ONLY transaction with a row cap and a statement timeout; a write through the
// read-only tool, or smuggled after a COMMIT, changes nothing; writes need the node's allow_writes
// and a person's approval; the connection string appears in no definition, card or result.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresTools } from '@/lib/tools/postgres-tool';
import type { PostgresConfig } from '@/lib/tools/tool-node-configs';
import type { Tool, ToolOutcome } from '@/lib/tools/tool-types';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';

let database: TestPostgres;
let admin: pg.Client;
beforeAll(async () => {
  database = await startPostgres();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query("CREATE TABLE fruit (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO fruit (name) SELECT 'fruit ' || n FROM generate_series(1, 500) n");
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await database?.stop();
});

const run = (tool: Tool, args: unknown, signal = new AbortController().signal): Promise<ToolOutcome> => tool.run(tool.args.parse(args), { sessionId: 's', workspaceDir: '/tmp', signal });
const tools = (config: Omit<PostgresConfig, 'connection'>) => Object.fromEntries(postgresTools({ connection: database.url, ...config }).map((tool) => [tool.definition.name, tool]));
const count = async () => Number((await admin.query('SELECT count(*) FROM fruit')).rows[0].count);

describe('tool.postgres', () => {
  it('reads with parameters, at most the row cap, through a cursor', async () => {
    const { postgres_query: read } = tools({ max_rows: 10 });
    const one = await run(read!, { sql: 'SELECT id, name FROM fruit WHERE id = $1', params: [7] });
    expect(one).toEqual({ isError: false, content: 'id\tname\n7\tfruit 7' });
    const many = await run(read!, { sql: 'SELECT name FROM fruit ORDER BY id' });
    expect(many.content.split('\n').slice(1, 11)).toHaveLength(10);
    expect(many.content).toContain('[more rows: only the first 10 are shown]');
    expect((await run(read!, { sql: 'SHOW server_version_num' })).content).toMatch(/^server_version_num\n\d+$/);
  });

  it('changes nothing through the read-only tool, however the statement is dressed', async () => {
    const { postgres_query: read } = tools({});
    const before = await count();
    const attempts = [
      "INSERT INTO fruit (name) VALUES ('smuggled')",
      "SELECT 1; COMMIT; INSERT INTO fruit (name) VALUES ('after commit')",
      "WITH gone AS (DELETE FROM fruit RETURNING id) SELECT count(*) FROM gone",
      'DROP TABLE fruit',
    ];
    for (const sql of attempts) {
      const outcome = await run(read!, { sql });
      expect(outcome.isError, sql).toBe(true);
      expect(outcome.content).toMatch(/^PostgreSQL: /);
    }
    expect(await count()).toBe(before);
  });

  it('a slow statement stops at the timeout', async () => {
    const { postgres_query: read } = tools({ statement_timeout_ms: 200 });
    const slow = await run(read!, { sql: 'SELECT pg_sleep(5)' });
    expect(slow).toMatchObject({ isError: true, timedOut: true });
    expect(slow.content).toContain('statement timeout');
  });

  it('writes exist only with allow_writes, need approval, and commit', async () => {
    expect(Object.keys(tools({}))).toEqual(['postgres_query']);
    const { postgres_execute: write } = tools({ allow_writes: true });
    expect(write!.approval).toBe('required');
    const inserted = await run(write!, { sql: 'INSERT INTO fruit (name) VALUES ($1) RETURNING id', params: ['mango'] });
    expect(inserted.content).toMatch(/^INSERT 1\nid\n\d+$/);
    expect(Number((await admin.query("SELECT count(*) FROM fruit WHERE name = 'mango'")).rows[0].count)).toBe(1);
    const failed = await run(write!, { sql: 'INSERT INTO fruit (name) VALUES (NULL)' });
    expect(failed.content).toContain('SQLSTATE 23502');
  });

  it('never shows the connection string; a missing or wrong one is a clear error', async () => {
    const secret = database.url.replace('postgres@', 'postgres:hunter2@');
    const [read] = postgresTools({ connection: secret });
    const outcome = await run(read!, { sql: 'SELECT 1 AS one' });
    const shown = JSON.stringify([read!.definition, read!.describeCall(read!.args.parse({ sql: 'SELECT 1' })), outcome]);
    expect(shown).not.toContain('hunter2');
    expect((await run(postgresTools({})[0]!, { sql: 'SELECT 1' })).content).toContain('no connection configured');
    const refused = await run(postgresTools({ connection: 'postgres://nobody:pw-secret-9@127.0.0.1:1/db' })[0]!, { sql: 'SELECT 1' });
    expect(refused.isError).toBe(true);
    expect(refused.content).not.toContain('pw-secret-9');
  });

  it("a connection the server ends mid-statement (restart, admin kill) is the call's error; the app goes on", async () => {
    const { postgres_query: read } = tools({ statement_timeout_ms: 30_000 });
    const slow = run(read!, { sql: 'SELECT pg_sleep(20)' });
    // node-postgres also emits 'error' on the client when its server goes away: unheard, that ends the process.
    const sleeping = "FROM pg_stat_activity WHERE application_name = 'agentcsd' AND state = 'active' AND pid <> pg_backend_pid()";
    await vi.waitFor(async () => expect((await admin.query(`SELECT pid ${sleeping}`)).rows).toHaveLength(1), { timeout: 10_000, interval: 50 });
    await admin.query(`SELECT pg_terminate_backend(pid) ${sleeping}`);
    const outcome = await slow;
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^PostgreSQL: .*terminat/);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the client's own 'error' event comes a tick after
    expect((await run(read!, { sql: 'SELECT 1 AS one' })).content).toBe('one\n1');
  });
});
