// A consistent copy of the live SQLite database, taken through SQLite's online backup API
// (better-sqlite3's `backup()`) on a connection of its own in a worker thread: the app's writes go
// on meanwhile (WAL: a reader never blocks a writer), and the copy — a page-for-page one, which
// takes a while on a large store — never holds the app's event loop. The whole database is copied
// in one step: steps taken apart restart whenever another connection writes between them, which
// a chatting app does every few hundred milliseconds.
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { PLAIN_SECRET_COLUMNS, putBack, takeSecrets, type HolderRows, type TakenSecret } from './backup-secrets';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
(async () => {
  const { job, source, target } = workerData;
  if (job === 'copy') {
    const db = new Database(source, { readonly: true, fileMustExist: true, timeout: 60000 });
    try {
      await db.backup(target, { progress: () => 0x7fffffff });
    } finally {
      db.close();
    }
  } else {
    // The copy's free pages could still hold what was just taken out of it: rebuilt without them.
    const db = new Database(target, { fileMustExist: true });
    try {
      db.exec('VACUUM');
    } finally {
      db.close();
    }
  }
  parentPort.postMessage('done');
})().catch((error) => parentPort.postMessage({ error: String(error && error.message || error) }));
`;

function inWorker(workerData: { job: 'copy' | 'vacuum'; source?: string; target: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData });
    worker.once('message', (message: 'done' | { error: string }) => (message === 'done' ? resolve() : reject(new Error(message.error))));
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the database copy's worker exited with ${code}`))));
  });
}

/** Copies the live database to `target` and takes the plain secrets out of the copy (returned). */
export async function snapshotSqlite(source: string, target: string): Promise<{ taken: TakenSecret[]; holders: HolderRows; newestMigration: string }> {
  await inWorker({ job: 'copy', source, target });
  const db = new Database(target, { fileMustExist: true });
  let taken: TakenSecret[] = [];
  let holders: HolderRows;
  let newestMigration: string;
  try {
    // A file of its own now: no WAL beside it once it is packed.
    db.pragma('journal_mode = DELETE');
    db.pragma('secure_delete = ON');
    db.transaction(() => {
      for (const { table, keyColumn, column, json } of PLAIN_SECRET_COLUMNS) {
        const update = db.prepare(`UPDATE "${table}" SET "${column}" = ? WHERE "${keyColumn}" = ?`);
        for (const row of db.prepare(`SELECT "${keyColumn}" AS key, "${column}" AS value FROM "${table}"`).all() as { key: string; value: string }[]) {
          const result = takeSecrets(table, row.key, column, row.value, json);
          if (!result.taken.length) continue;
          taken = taken.concat(result.taken);
          update.run(result.text, row.key);
        }
      }
    })();
    holders = holderRows(db);
    newestMigration = (db.prepare('SELECT max(migration_name) AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL').get() as { name: string | null }).name ?? '';
  } finally {
    db.close();
  }
  await inWorker({ job: 'vacuum', target });
  return { taken, holders, newestMigration };
}

function holderRows(db: Database.Database): HolderRows {
  return {
    sessions: db.prepare('SELECT id, name FROM sessions').all() as { id: string; name: string }[],
    hooks: db.prepare('SELECT id, name FROM hooks').all() as { id: string; name: string }[],
    channels: db.prepare('SELECT name, kind, config FROM channels').all() as { name: string; kind: string; config: string }[],
    mcpServers: (db.prepare('SELECT server_name AS name FROM mcp_tokens').all() as { name: string }[]).map((row) => row.name),
    sealedSettings: (db.prepare(`SELECT key FROM settings WHERE value LIKE '%"v1:%'`).all() as { key: string }[]).map((row) => row.key),
  };
}

/** Puts the taken secrets back into a restored database file, or — without them — turns off what cannot work without its secret. */
export function restoreSqliteSecrets(file: string, taken: readonly TakenSecret[] | null, randomSecret: () => string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.transaction(() => {
      if (!taken) {
        // A webhook without its key would accept anyone's call: a new unknown key, and off.
        const hooks = db.prepare('SELECT id FROM hooks').all() as { id: string }[];
        const update = db.prepare('UPDATE hooks SET secret = ?, enabled = 0 WHERE id = ?');
        for (const hook of hooks) update.run(randomSecret(), hook.id);
        return;
      }
      for (const { table, keyColumn, column } of PLAIN_SECRET_COLUMNS) {
        const mine = taken.filter((secret) => secret.table === table);
        const select = db.prepare(`SELECT "${column}" AS value FROM "${table}" WHERE "${keyColumn}" = ?`);
        const update = db.prepare(`UPDATE "${table}" SET "${column}" = ? WHERE "${keyColumn}" = ?`);
        for (const key of new Set(mine.map((secret) => secret.key))) {
          const row = select.get(key) as { value: string } | undefined;
          if (row) update.run(putBack(row.value, mine.filter((secret) => secret.key === key)), key);
        }
      }
    })();
  } finally {
    db.close();
  }
}
