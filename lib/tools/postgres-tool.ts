// The PostgreSQL capability (tool.postgres, ARCHITECTURE §13) with the `pg` driver: one connection
// per call to the node's database. `postgres_query` runs in a READ ONLY transaction with the node's
// statement timeout and returns at most its row cap (read through a cursor, so a huge result is
// never fetched); `postgres_execute` exists only when the node allows writes, and a person approves
// each call. Statements go over the extended protocol, one at a time: "SELECT 1; COMMIT; DROP …"
// is refused by the server, never run past the read-only transaction. The connection string is a secret: it never appears in a definition, a card or a
// result (errors are the server's message only).
import pg from 'pg';
import { quietClient } from '@/lib/store/pg-errors';
import { z } from 'zod';
import type { PostgresConfig } from '@/lib/tools/tool-node-configs';
import { builtinTool, errorOutcome, type Tool, type ToolOutcome, type ToolRunContext } from './tool-types';
import { errorText } from '@/lib/errors/error-text';


const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_ROWS = 200;
/** A result longer than this is cut (the model reads it all). */
const MAX_RESULT_CHARS = 64 * 1024;

const argsSchema = z
  .object({
    sql: z.string().min(1).max(100_000).describe('One SQL statement.'),
    params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).max(100).optional().describe('Values for $1, $2, …'),
  })
  .strict();
type PostgresArgs = z.infer<typeof argsSchema>;

/** The extended protocol even without values (pg 8 supports `queryMode`; its types do not list it): one statement, never a script. */
function extended<T extends pg.QueryConfig>(config: T): T {
  return Object.assign(config, { queryMode: 'extended' });
}

function table(fields: readonly { name: string }[], rows: readonly unknown[][], more: boolean, maxRows: number): string {
  const header = fields.map((field) => field.name).join('\t');
  const body = rows.map((row) => row.map((value) => (value === null ? 'NULL' : typeof value === 'object' ? JSON.stringify(value) : String(value))).join('\t'));
  const text = [header, ...body].join('\n');
  const note = more ? `\n[more rows: only the first ${maxRows} are shown]` : '';
  return (text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n[cut at ${MAX_RESULT_CHARS} characters]` : text) + note;
}

async function withClient(config: PostgresConfig, context: ToolRunContext, work: (client: pg.Client, timeoutMs: number) => Promise<ToolOutcome>): Promise<ToolOutcome> {
  if (!config.connection) return errorOutcome('This PostgreSQL capability has no connection configured (the persona’s Capabilities page).');
  const timeoutMs = config.statement_timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const client = quietClient(new pg.Client({ connectionString: config.connection, connectionTimeoutMillis: 5_000, query_timeout: timeoutMs + 2_000, application_name: 'agentcsd' }));
  const cancel = () => void client.end().catch(() => undefined);
  context.signal.addEventListener('abort', cancel, { once: true });
  try {
    await client.connect();
    return await work(client, timeoutMs);
  } catch (error) {
    if (context.signal.aborted) return errorOutcome('Cancelled.', { cancelled: true });
    const code = (error as { code?: string }).code;
    const message = errorText(error);
    return errorOutcome(`PostgreSQL: ${message}${code ? ` (SQLSTATE ${code})` : ''}`, { timedOut: code === '57014' });
  } finally {
    context.signal.removeEventListener('abort', cancel);
    await client.end().catch(() => undefined);
  }
}

async function query(args: PostgresArgs, config: PostgresConfig, context: ToolRunContext): Promise<ToolOutcome> {
  const maxRows = config.max_rows ?? DEFAULT_MAX_ROWS;
  return withClient(config, context, async (client, timeoutMs) => {
    await client.query('BEGIN READ ONLY');
    try {
      await client.query(`SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
      // A cursor reads only what is shown; statements that are not queries run as they are.
      let result: pg.QueryArrayResult;
      let more = false;
      try {
        await client.query('SAVEPOINT cursor_attempt');
        await client.query(extended({ text: `DECLARE agentcsd_rows NO SCROLL CURSOR FOR ${args.sql}`, values: args.params }));
        result = await client.query({ text: `FETCH ${maxRows + 1} FROM agentcsd_rows`, rowMode: 'array' });
        more = result.rows.length > maxRows;
      } catch (error) {
        if ((error as { code?: string }).code !== '42601' && (error as { code?: string }).code !== '0A000') throw error;
        await client.query('ROLLBACK TO SAVEPOINT cursor_attempt');
        result = await client.query(extended({ text: args.sql, values: args.params, rowMode: 'array' }));
      }
      const rows = result.rows.slice(0, maxRows);
      const content = result.fields.length > 0 ? table(result.fields, rows, more, maxRows) : commandSummary(result);
      return { isError: false, content };
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
    }
  });
}

/** What a statement did, as psql says it: "INSERT 3", "CREATE TABLE". */
function commandSummary(result: pg.QueryArrayResult): string {
  return `${result.command ?? 'OK'} ${result.rowCount ?? ''}`.trim();
}

async function execute(args: PostgresArgs, config: PostgresConfig, context: ToolRunContext): Promise<ToolOutcome> {
  const maxRows = config.max_rows ?? DEFAULT_MAX_ROWS;
  return withClient(config, context, async (client, timeoutMs) => {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
      const result = await client.query(extended({ text: args.sql, values: args.params, rowMode: 'array' }));
      await client.query('COMMIT');
      const summary = commandSummary(result);
      return { isError: false, content: result.fields.length > 0 ? `${summary}\n${table(result.fields, result.rows.slice(0, maxRows), result.rows.length > maxRows, maxRows)}` : summary };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** The node's tools: always `postgres_query` (read-only); `postgres_execute` only with allow_writes. */
export function postgresTools(config: PostgresConfig): Tool[] {
  const limits = `statement timeout ${config.statement_timeout_ms ?? DEFAULT_TIMEOUT_MS} ms, at most ${config.max_rows ?? DEFAULT_MAX_ROWS} rows`;
  const tools: Tool[] = [
    builtinTool({
      name: 'postgres_query',
      traits: ['sends_out'],
      description: `Run one read-only SQL statement on the user's PostgreSQL database (a READ ONLY transaction; ${limits}). Returns tab-separated rows with a header.`,
      args: argsSchema,
      describeCall: (args) => args.sql.replace(/\s+/g, ' ').slice(0, 200),
      run: (args, context) => query(args, config, context),
    }) as Tool,
  ];
  if (config.allow_writes) {
    tools.push(
      builtinTool({
        name: 'postgres_execute',
        traits: ['sends_out'],
        description: `Run one SQL statement that changes the user's PostgreSQL database (committed if it succeeds; ${limits}). The user approves each call.`,
        args: argsSchema,
        approval: 'required',
        sendsOut: () => true, // it changes a database outside the workspace
        describeCall: (args) => args.sql.replace(/\s+/g, ' ').slice(0, 200),
        run: (args, context) => execute(args, config, context),
      }) as Tool,
    );
  }
  return tools;
}
