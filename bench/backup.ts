// Backups (issue 63): the time and size of a whole-app backup of a store with 100k messages, on
// SQLite and on PostgreSQL (pg_dump, loopback); and the reply path's first token while a backup
// runs in the same process, against without — samples interleaved one by one, the backups one
// after another for the whole of the "during" samples.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { takeBackup } from '@/lib/backup/take-backup';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { appPaths } from '@/lib/config/env';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb, getStore } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { databaseUrl } from '@/test/support/postgres';
import { seedChat } from '@/test/support/seed-chat';
import { firstEvent } from './first-event';
import { formatMs, median, percentile } from './stats';

export interface BackupSizeResult {
  store: 'sqlite' | 'postgres';
  messages: number;
  storeMb: number;
  seconds: number[];
  archiveMb: number;
}

function freshFolders(name: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `agentcsd-bench-${name}-`));
  process.env.AGENTCSD_DATA_DIR = path.join(root, 'data');
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  return root;
}

async function seed(messages: number): Promise<number> {
  const store = await getStore();
  const sessionId = crypto.randomUUID();
  await insertSession({ id: sessionId, name: 'bench', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
  if (store.kind === 'sqlite') {
    seedChat({ databaseFile: appPaths().databaseFile, sessionId, count: messages });
    return fs.statSync(appPaths().databaseFile).size;
  }
  await store.db.$executeRawUnsafe(
    `INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, turn_id)
     SELECT $1, 'external', CASE WHEN i % 2 = 0 THEN 'ED_user' ELSE 'ED_agent' END, 'Message ' || i || ': ' || repeat('some words ', 8), now() - (($2 - i) || ' seconds')::interval, 0, 'seeded'
     FROM generate_series(1, $2::int) AS i`,
    sessionId,
    messages,
  );
  const [row] = await store.db.$queryRawUnsafe<{ size: bigint }[]>('SELECT pg_database_size(current_database()) AS size');
  return Number(row!.size);
}

export async function benchBackupSize(options: { messages: number; runs: number; postgresUrl?: string }): Promise<BackupSizeResult> {
  const root = freshFolders('backup');
  if (options.postgresUrl) process.env.AGENTCSD_DATABASE_URL = databaseUrl(options.postgresUrl, `backup_${crypto.randomUUID().replaceAll('-', '')}`);
  try {
    const storeBytes = await seed(options.messages);
    const seconds: number[] = [];
    let archiveBytes = 0;
    for (let run = 0; run < options.runs; run++) {
      const started = performance.now();
      const result = await takeBackup({ to: path.join(root, 'backups', `run-${run}.tar.gz`) });
      seconds.push((performance.now() - started) / 1000);
      archiveBytes = result.size;
    }
    return { store: options.postgresUrl ? 'postgres' : 'sqlite', messages: options.messages, storeMb: storeBytes / 2 ** 20, seconds, archiveMb: archiveBytes / 2 ** 20 };
  } finally {
    await closeDb();
    delete process.env.AGENTCSD_DATABASE_URL;
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export interface BackupFirstTokenResult {
  without: number[];
  during: number[];
  backupsTaken: number;
}

/** First reply token of a live session (SQLite, 100k messages in the store) with and without a backup running beside it. */
export async function benchFirstTokenDuringBackup(options: { samples: number; messages: number }): Promise<BackupFirstTokenResult> {
  const root = freshFolders('backup-reply');
  const model = await startFakeOpenAIServer({ script: mindScript });
  const orchestrator = new Orchestrator();
  try {
    await getDb();
    await seed(options.messages);
    await orchestrator.start();
    const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
    const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
    const firstToken = async (index: number) => {
      const started = performance.now();
      const delta = firstEvent(orchestrator.bus, (event) => (event.type === 'reply-delta' && event.sessionId === session.id ? true : undefined));
      const ended = firstEvent(orchestrator.bus, (event) => (event.type === 'turn-end' && event.sessionId === session.id ? true : undefined));
      await orchestrator.sendUserMessage(session.id, { text: `Question ${index}: what is on the list today?` });
      await delta;
      const elapsed = performance.now() - started;
      await ended;
      return elapsed;
    };
    const result: BackupFirstTokenResult = { without: [], during: [], backupsTaken: 0 };
    for (let warm = 0; warm < 3; warm++) await firstToken(-warm);
    for (let index = 0; index < options.samples; index++) {
      result.without.push(await firstToken(index));
      let running = true;
      const backups = (async () => {
        for (let run = 0; running; run++) {
          await takeBackup({ to: path.join(root, 'backups', `during-${index}-${run}.tar.gz`) });
          fs.rmSync(path.join(root, 'backups', `during-${index}-${run}.tar.gz`), { force: true });
          result.backupsTaken++;
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 50)); // the backup is under way
      result.during.push(await firstToken(index));
      running = false;
      await backups;
    }
    return result;
  } finally {
    await orchestrator.stop();
    await model.close();
    await closeDb();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export function backupTables(sizes: readonly BackupSizeResult[], reply: BackupFirstTokenResult): string {
  return [
    '| store | messages | store on disk | backup: median s (runs) | archive |',
    '|---|---|---|---|---|',
    ...sizes.map((size) => `| ${size.store === 'sqlite' ? 'SQLite (online backup API, in a worker)' : 'PostgreSQL (pg_dump -Fc, loopback)'} | ${size.messages.toLocaleString('en')} | ${size.storeMb.toFixed(1)} MiB | ${median(size.seconds).toFixed(2)} (${size.seconds.length}) | ${size.archiveMb.toFixed(1)} MiB |`),
    '',
    '| reply path, first token | p50 | p90 | samples |',
    '|---|---|---|---|',
    `| without a backup | ${formatMs(median(reply.without))} | ${formatMs(percentile(reply.without, 90))} | ${reply.without.length} |`,
    `| while a backup runs (${reply.backupsTaken} taken) | ${formatMs(median(reply.during))} | ${formatMs(percentile(reply.during, 90))} | ${reply.during.length} |`,
    `| ratio of medians | ${(median(reply.during) / median(reply.without)).toFixed(2)}× | | |`,
  ].join('\n');
}
