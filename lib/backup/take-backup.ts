// `npm run backup -- --to FILE` and the scheduled backups (ARCHITECTURE §28): the whole app in one
// gzip'd tar while it runs — the store (SQLite's online backup, or pg_dump), the data folder's
// files (logs, workspaces and their uploads, the browser's sign-ins, the cluster's workspace
// copies), the personas and the global skills — with a manifest of every part's size and SHA-256.
// Secrets never travel in the clear: the sealing key and the database's plain secrets go in
// `secrets.enc` under a passphrase, or are left out. The archive is written as `FILE.partial` and
// renamed when whole, mode 0600: a backup that stopped half-way is never mistaken for one.
import fs from 'node:fs';
import path from 'node:path';
import { create as createTar } from 'tar';
import { appPaths, readEnv } from '@/lib/config/env';
import { computeAppVersion } from '@/lib/engine/app-version';
import { storeLocation } from '@/lib/store/db';
import { secretKey } from '@/lib/store/secret-box';
import { encryptSecrets } from './backup-key';
import { describeFile, FORMAT, MANIFEST, PARTS, type Manifest } from './backup-manifest';
import { secretHolders, type SecretsBundle } from './backup-secrets';
import { snapshotSqlite } from './sqlite-snapshot';

/** Files of the data folder a backup never copies: the live database (copied apart), the process lock, the key (sealed apart), what is rebuilt. */
const NOT_COPIED = new Set(['agentcsd.db', 'agentcsd.db-wal', 'agentcsd.db-shm', 'agentcsd.db-journal', 'agentcsd.lock', 'secret.key', 'browser/chromium-unprivileged.sh']);

export interface BackupOptions {
  to: string;
  /** Seals the key and secrets into the archive; without it they are left out. */
  passphrase?: string;
  /** How much is done (0–1) and what. */
  onProgress?: (done: number, what: string) => void;
  /** scrypt's cost (tests lower it; the default is the documented one). */
  kdfCost?: { n?: number };
}

export interface BackupResult {
  file: string;
  size: number;
  manifest: Manifest;
}

export async function takeBackup(options: BackupOptions): Promise<BackupResult> {
  const target = path.resolve(options.to);
  const progress = options.onProgress ?? (() => undefined);
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.agentcsd-backup-'));
  const partial = `${target}.partial`;
  try {
    const { dataDir, logsDir } = appPaths();
    const store = storeLocation();
    // The session logs first, the database after (issue 73 §8): a log line is written after its row
    // commits, so the copied logs hold nothing the snapshot lacks, and a restore replays what they miss.
    const skipped = (relative: string) => NOT_COPIED.has(relative) || isBackupFolder(path.join(dataDir, relative), dataDir, path.dirname(target)) || /^[^/]+\.tar\.gz(\.partial)?$/.test(relative);
    const logs = path.relative(dataDir, logsDir).split(path.sep).join('/');
    progress(0.01, 'copying the session logs');
    await copyTree(dataDir, path.join(staging, 'data'), (relative) => skipped(relative) || !(relative === logs || relative.startsWith(`${logs}/`)));
    progress(0.02, 'copying the database');
    fs.mkdirSync(path.join(staging, 'database'), { mode: 0o700 });
    const { taken, holders, newestMigration } =
      store.kind === 'sqlite'
        ? await snapshotSqlite(store.file, path.join(staging, PARTS.sqlite))
        : await (await import('./postgres-dump')).dumpPostgres(store.url, path.join(staging, PARTS.postgresDump), path.join(staging, PARTS.postgresRows));
    progress(0.6, 'copying the data folder');
    await copyTree(dataDir, path.join(staging, 'data'), (relative) => skipped(relative) || relative === logs || relative.startsWith(`${logs}/`));
    const env = readEnv();
    await copyTree(path.resolve(env.AGENTCSD_PERSONAS_DIR), path.join(staging, 'personas'), () => false);
    await copyTree(path.resolve(env.AGENTCSD_SKILLS_DIR), path.join(staging, 'skills'), () => false);
    if (options.passphrase !== undefined) {
      const bundle: SecretsBundle = { sealing_key: secretKey().toString('base64'), taken };
      fs.writeFileSync(path.join(staging, PARTS.secrets), await encryptSecrets(Buffer.from(JSON.stringify(bundle), 'utf8'), options.passphrase, options.kdfCost), { mode: 0o600 });
    }
    progress(0.75, 'checksumming');
    const files = listFiles(staging);
    const manifest: Manifest = {
      format: FORMAT,
      format_version: 1,
      app_version: readEnv().AGENTCSD_APP_VERSION ?? computeAppVersion(),
      created_at: new Date().toISOString(),
      store: store.kind,
      newest_migration: newestMigration,
      secrets: options.passphrase !== undefined ? 'sealed' : 'left-out',
      secret_holders: secretHolders(taken, holders),
      parts: [],
    };
    for (const file of files) manifest.parts.push(await describeFile(path.join(staging, file), file));
    fs.writeFileSync(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    progress(0.8, 'packing');
    fs.rmSync(partial, { force: true });
    await createTar({ gzip: { level: 6 }, file: partial, cwd: staging, portable: true }, [MANIFEST, ...files]);
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, target);
    progress(1, 'done');
    return { file: target, size: fs.statSync(target).size, manifest };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The folder backups are written to, when it is inside the data folder (never the data folder itself). */
function isBackupFolder(child: string, dataDir: string, backups: string): boolean {
  return path.resolve(backups) !== path.resolve(dataDir) && isInside(backups, dataDir) && isInside(child, backups);
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Copies regular files (never links, sockets or devices) from `from` to `to`, skipping what `skip` names (paths relative to `from`, with /); asynchronously, so a large workspace never holds the app's event loop. */
async function copyTree(from: string, to: string, skip: (relative: string) => boolean, relative = ''): Promise<void> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(path.join(from, relative), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    if (skip(child) || entry.name.startsWith('.agentcsd-backup-')) continue;
    if (entry.isDirectory()) await copyTree(from, to, skip, child);
    else if (entry.isFile()) {
      await fs.promises.mkdir(path.dirname(path.join(to, child)), { recursive: true, mode: 0o700 });
      try {
        await fs.promises.copyFile(path.join(from, child), path.join(to, child));
      } catch (error) {
        // A file removed while the folder was walked (a workspace's temporary file) is not part of the moment.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }
}

/** Every regular file under a folder, relative, with /, sorted. */
export function listFiles(root: string, relative = ''): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) found.push(...listFiles(root, child));
    else if (entry.isFile()) found.push(child);
  }
  return found.sort();
}
