// The PostgreSQL store's part of a backup: `pg_dump` in its custom format (Debian's client) inside
// a snapshot this connection exported, so the dump and the rows read beside it are one moment of
// the database. The three tables that hold plain secrets (sessions, settings, hooks) are left out
// of the dump's data and written as JSON with the secrets taken out; a restore loads the dump's
// tables, then those rows, then the constraints and indexes (`pg_restore --section`).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { connectCreating } from '@/lib/store/postgres-db';
import { BackupError } from './backup-manifest';
import { PLAIN_SECRET_COLUMNS, byRow, putBack, rowId, takeSecrets, type HolderRows, type TakenSecret } from './backup-secrets';
import { errorText } from '@/lib/errors/error-text';

const run = promisify(execFile);

/** pg_dump or pg_restore: on PATH (Debian's wrapper picks the newest client), else the newest installed. */
export function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) if (folder && fs.existsSync(path.join(folder, name))) return path.join(folder, name);
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((entry) => fs.existsSync(path.join(root, entry, 'bin', name))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new BackupError('tool_missing', `${name} was not found: install PostgreSQL's client (apt-get install postgresql-client)`);
  return path.join(root, newest, 'bin', name);
}

/** The URL without its password, and the environment that passes it (never on a command line others can read). */
function connection(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { url: parsed.toString(), env: { ...process.env, ...(password && { PGPASSWORD: password }) } };
}

type Rows = Record<(typeof PLAIN_SECRET_COLUMNS)[number]['table'], Record<string, unknown>[]>;

export async function dumpPostgres(url: string, dumpFile: string, rowsFile: string): Promise<{ taken: TakenSecret[]; holders: HolderRows; newestMigration: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: exported } = await client.query<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot');
    const target = connection(url);
    const excluded = PLAIN_SECRET_COLUMNS.flatMap(({ table }) => ['--exclude-table-data', table]);
    const dump = run(pgTool('pg_dump'), ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${exported[0]!.snapshot}`, ...excluded, '--file', dumpFile, '--dbname', target.url], { env: target.env, maxBuffer: 16 * 1024 * 1024 });
    const rows = {} as Rows;
    let taken: TakenSecret[] = [];
    for (const { table, keyColumn, column, json } of PLAIN_SECRET_COLUMNS) {
      const { rows: found } = await client.query<{ row: Record<string, unknown> }>(`SELECT row_to_json(t) AS row FROM "${table}" t`);
      rows[table] = found.map(({ row }) => {
        const result = takeSecrets(table, String(row[keyColumn]), column, String(row[column] ?? ''), json);
        taken = taken.concat(result.taken);
        return { ...row, [column]: result.text };
      });
    }
    const holders: HolderRows = {
      sessions: rows.sessions.map((row) => ({ id: String(row.id), name: String(row.name) })),
      hooks: rows.hooks.map((row) => ({ id: String(row.id), name: String(row.name) })),
      channels: (await client.query<{ name: string; kind: string; config: string }>('SELECT name, kind, config FROM channels')).rows,
      mcpServers: (await client.query<{ name: string }>('SELECT server_name AS name FROM mcp_tokens')).rows.map((row) => row.name),
      sealedSettings: rows.settings.filter((row) => String(row.value).includes('"v1:')).map((row) => String(row.key)),
    };
    const { rows: migrations } = await client.query<{ name: string | null }>('SELECT max(migration_name) AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL');
    try {
      await dump;
    } catch (error) {
      throw new BackupError('failed', `pg_dump failed: ${String((error as { stderr?: string }).stderr || errorText(error)).trim()}`);
    }
    fs.writeFileSync(rowsFile, JSON.stringify(rows), { mode: 0o600 });
    return { taken, holders, newestMigration: migrations[0]?.name ?? '' };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}

/** Whether the database holds no AgentCSD tables (a restore never writes over a live store); one that does not exist yet is made, as the store does. */
export async function postgresIsEmpty(url: string): Promise<boolean> {
  const client = await connectCreating(url);
  try {
    const { rows } = await client.query<{ count: string }>(`SELECT count(*) AS count FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('_prisma_migrations', 'sessions', 'messages')`);
    return Number(rows[0]!.count) === 0;
  } finally {
    await client.end();
  }
}

/** Loads a dump and its rows into an empty database, secrets put back when given (or, without them, webhooks turned off). */
export async function restorePostgres(url: string, dumpFile: string, rowsFile: string, taken: readonly TakenSecret[] | null, randomSecret: () => string): Promise<void> {
  const target = connection(url);
  const restore = async (section: string) => {
    try {
      await run(pgTool('pg_restore'), ['--no-owner', '--no-privileges', '--exit-on-error', `--section=${section}`, '--dbname', target.url, dumpFile], { env: target.env, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      throw new BackupError('failed', `pg_restore (${section}) failed: ${String((error as { stderr?: string }).stderr || errorText(error)).trim()}`);
    }
  };
  await restore('pre-data');
  await restore('data');
  const rows = JSON.parse(fs.readFileSync(rowsFile, 'utf8')) as Rows;
  const secrets = byRow(taken ?? []);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const { table, keyColumn, column } of PLAIN_SECRET_COLUMNS) {
      const filled = (rows[table] ?? []).map((row) => {
        if (!taken) return table === 'hooks' ? { ...row, secret: randomSecret(), enabled: false } : row;
        return { ...row, [column]: putBack(String(row[column] ?? ''), secrets.get(rowId(table, String(row[keyColumn]))) ?? []) };
      });
      if (filled.length) await client.query(`INSERT INTO "${table}" SELECT * FROM json_populate_recordset(null::"${table}", $1::json)`, [JSON.stringify(filled)]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
  await restore('post-data');
}
