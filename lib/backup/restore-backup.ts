// `npm run restore -- --from FILE` (ARCHITECTURE §28): a backup back into an empty data folder
// (and, on PostgreSQL, an empty database) — never over a live one. Everything is checked before
// anything is written: the archive unpacks into a folder of its own, holding only files and
// folders inside it; every part the manifest lists is there with its size and SHA-256 and nothing
// else is; the schema is one this checkout knows (a newer one is refused, an older one is migrated
// forward after); the passphrase opens the secrets. Then the data folder is filled, the database
// loaded, the secrets put back, and the app starts as it was.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { extract } from 'tar';
import { appPaths, readEnv } from '@/lib/config/env';
import { defaultMigrationsDir, listMigrations, migrateDatabase } from '@/lib/store/migrations';
import { migratePostgres, postgresMigrationsDir } from '@/lib/store/postgres-db';
import { decryptSecrets } from './backup-key';
import { BackupError, describeFile, MANIFEST, PARTS, readManifest, type Manifest } from './backup-manifest';
import { secretsBundleSchema, type SecretsBundle } from './backup-secrets';
import { postgresIsEmpty, restorePostgres } from './postgres-dump';
import { restoreSqliteSecrets } from './sqlite-snapshot';
import { listFiles } from './take-backup';
import { errorText } from '@/lib/errors/error-text';
import { getDb } from '@/lib/store/db';
import { reconcileSessionLogs } from '@/lib/store/log-reconcile';

export interface RestoreOptions {
  from: string;
  passphrase?: string;
  /** Restores a sealed backup without its secrets (they are named, to type again). */
  withoutSecrets?: boolean;
}

export interface RestoreResult {
  manifest: Manifest;
  /** Migrations applied after the restore (the backup's schema was older). */
  migrated: string[];
  /** What must be typed again (empty when the secrets came back). */
  toTypeAgain: string[];
  /** Personas and skills written (same-named ones replaced). */
  personas: string[];
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const { dataDir, databaseFile } = appPaths();
  const env = readEnv();
  const postgresUrl = env.AGENTCSD_DATABASE_URL;
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0)
    throw new BackupError('not_empty', `${dataDir} is not empty: a restore never writes over a data folder. Restore into a new one (AGENTCSD_DATA_DIR=…), or move this one away first.`);
  if (!fs.existsSync(options.from)) throw new BackupError('not_a_backup', `${options.from} does not exist`);
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(dataDir), '.agentcsd-restore-'));
  try {
    await unpack(options.from, staging);
    const manifest = readManifest(readIfThere(path.join(staging, MANIFEST)));
    await verifyParts(manifest, staging);
    const store = postgresUrl ? 'postgres' : 'sqlite';
    if (manifest.store !== store)
      throw new BackupError('not_a_backup', `This backup is of a ${manifest.store === 'sqlite' ? 'SQLite' : 'PostgreSQL'} store and this app is set up for ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (AGENTCSD_DATABASE_URL ${postgresUrl ? 'is' : 'is not'} set).`);
    const known = listMigrations(store === 'sqlite' ? defaultMigrationsDir() : postgresMigrationsDir()).map((migration) => migration.name);
    if (manifest.newest_migration && !known.includes(manifest.newest_migration)) {
      const newer = manifest.newest_migration > (known.at(-1) ?? '');
      throw new BackupError(
        'newer_schema',
        newer
          ? `This backup was taken by a newer AgentCSD (app ${manifest.app_version}, schema ${manifest.newest_migration}); this checkout knows the schema up to ${known.at(-1)}. Update it (git pull, npm ci), then restore. Nothing was written.`
          : `This backup's schema (${manifest.newest_migration}) is not one this checkout knows. Nothing was written.`,
      );
    }
    const bundle = await openSecrets(manifest, staging, options);
    if (postgresUrl && !(await postgresIsEmpty(postgresUrl))) throw new BackupError('not_empty', 'The PostgreSQL database already holds an AgentCSD store: restore into an empty database (a new name in AGENTCSD_DATABASE_URL).');

    // Checked: from here on, writes.
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dataDir, 0o700);
    moveTree(path.join(staging, 'data'), dataDir);
    const randomSecret = () => randomBytes(32).toString('base64url');
    let migrated: string[];
    if (!postgresUrl) {
      fs.renameSync(path.join(staging, PARTS.sqlite), databaseFile);
      restoreSqliteSecrets(databaseFile, bundle?.taken ?? null, randomSecret);
      migrated = migrateDatabase({ databaseFile }).applied;
    } else {
      await restorePostgres(postgresUrl, path.join(staging, PARTS.postgresDump), path.join(staging, PARTS.postgresRows), bundle?.taken ?? null, randomSecret);
      migrated = (await migratePostgres(postgresUrl)).applied;
    }
    if (bundle?.sealing_key) fs.writeFileSync(path.join(dataDir, 'secret.key'), Buffer.from(bundle.sealing_key, 'base64'), { mode: 0o600 });
    const personas = [...copyInto(path.join(staging, 'personas'), path.resolve(env.AGENTCSD_PERSONAS_DIR)), ...copyInto(path.join(staging, 'skills'), path.resolve(env.AGENTCSD_SKILLS_DIR)).map((file) => `skills/${file}`)];
    // The logs were copied before the snapshot (take-backup.ts): what the database holds and they lack is written now.
    const db = await getDb();
    for (const { id } of await db.session.findMany({ select: { id: true } })) await reconcileSessionLogs(id);
    return { manifest, migrated, toTypeAgain: bundle ? [] : manifest.secret_holders, personas };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Unpacks into `staging`: regular files and folders only, every path inside it (tar refuses `..`
 * and absolute ones; links and devices are dropped here), and no more than the disk has room for
 * (a small archive that unpacks into a huge one — a decompression bomb — stops at the first entry
 * past the room, before it is written).
 */
async function unpack(archive: string, staging: string): Promise<void> {
  const refused: string[] = [];
  const free = fs.statfsSync(staging);
  const room = free.bavail * free.bsize - UNPACK_MARGIN_BYTES;
  let declared = 0;
  try {
    await extract({
      file: archive,
      cwd: staging,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      noMtime: true,
      filter: (entryPath, entry) => {
        const type = 'type' in entry ? entry.type : 'File';
        declared += entry.size ?? 0;
        if (declared > room) {
          refused.push(`${entryPath} (the archive unpacks into more than the ${Math.max(0, Math.floor(room / 2 ** 20))} MiB free here)`);
          return false;
        }
        const ok = type === 'File' || type === 'Directory';
        if (!ok) refused.push(`${entryPath} (${type})`);
        return ok;
      },
    });
  } catch (error) {
    // An entry refused on the way may be why the rest cannot be read (a huge one that is not there).
    if (!refused.length) throw new BackupError('damaged', `The archive cannot be read (${errorText(error)}): it is damaged or not an AgentCSD backup. Nothing was written.`);
  }
  if (refused.length) throw new BackupError('damaged', `The archive holds entries a backup never has (${refused.slice(0, 3).join(', ')}): refused, nothing was written.`);
}

/** Left free on the disk while unpacking: the restore itself writes the store next to the staging folder. */
const UNPACK_MARGIN_BYTES = 256 * 2 ** 20;

function readIfThere(file: string): string {
  if (!fs.existsSync(file)) throw new BackupError('not_a_backup', 'The archive has no manifest.json: it is not an AgentCSD backup. Nothing was written.');
  return fs.readFileSync(file, 'utf8');
}

/** Every listed part with its size and SHA-256, and no file the manifest does not list. */
async function verifyParts(manifest: Manifest, staging: string): Promise<void> {
  const listed = new Set(manifest.parts.map((part) => part.path));
  const extra = listFiles(staging).filter((file) => file !== MANIFEST && !listed.has(file));
  if (extra.length) throw new BackupError('damaged', `The archive holds files its manifest does not list (${extra.slice(0, 3).join(', ')}): refused, nothing was written.`);
  for (const part of manifest.parts) {
    const file = path.join(staging, part.path);
    if (!file.startsWith(staging + path.sep) || !fs.existsSync(file)) throw new BackupError('damaged', `${part.path} is missing from the archive: refused, nothing was written.`);
    const found = await describeFile(file, part.path);
    if (found.size !== part.size || found.sha256 !== part.sha256) throw new BackupError('damaged', `${part.path} does not match its checksum: the archive is damaged. Nothing was written.`);
  }
  const database = manifest.store === 'sqlite' ? [PARTS.sqlite] : [PARTS.postgresDump, PARTS.postgresRows];
  for (const part of database) if (!listed.has(part)) throw new BackupError('damaged', `The archive has no ${part}: refused, nothing was written.`);
}

async function openSecrets(manifest: Manifest, staging: string, options: RestoreOptions): Promise<SecretsBundle | null> {
  if (manifest.secrets === 'left-out' || options.withoutSecrets) return null;
  if (options.passphrase === undefined)
    throw new BackupError('passphrase', 'This backup’s secrets are sealed with a passphrase: give it (--passphrase-file FILE), or restore with --without-secrets and type the keys again. Nothing was written.');
  const plain = await decryptSecrets(fs.readFileSync(path.join(staging, PARTS.secrets)), options.passphrase);
  const parsed = secretsBundleSchema.safeParse(JSON.parse(plain.toString('utf8')));
  if (!parsed.success) throw new BackupError('damaged', 'The backup’s secrets are not in the expected form: refused, nothing was written.');
  return parsed.data;
}

/** Moves a tree's files into a folder, kept to their owner (the data folder is the owner's alone; an executable in a workspace stays one). */
function moveTree(from: string, to: string): void {
  if (!fs.existsSync(from)) return;
  for (const file of listFiles(from)) {
    const target = path.join(to, file);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.renameSync(path.join(from, file), target);
    fs.chmodSync(target, fs.statSync(target).mode & 0o700);
  }
}

/** Copies a tree's files into a folder, replacing same-named ones; the files written. */
function copyInto(from: string, to: string): string[] {
  if (!fs.existsSync(from)) return [];
  const files = listFiles(from);
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.copyFileSync(path.join(from, file), path.join(to, file));
  }
  return files;
}
