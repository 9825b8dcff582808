// Points the app's data and personas folders at fresh temporary folders for one test file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { closeDb } from '@/lib/store/db';
import { databaseUrl } from './postgres';

export interface TempAppDirs {
  root: string;
  dataDir: string;
  personasDir: string;
  /** Global skills (empty unless given): the repository's own skills/ never leak into a test. */
  skillsDir: string;
}

/** Whether this run keeps the store in PostgreSQL (vitest's `postgres` project). */
export const storeOnPostgres = process.env.AGENTCSD_TEST_STORE === 'postgres';

/** A database of its own on the run's PostgreSQL (postgres-store-setup.ts; the store creates it on first use); dropped with drop(). */
function testDatabase(): { url: string; drop(): Promise<void> } {
  const serverUrl = inject('postgresStoreUrl');
  const name = `agentcsd_${randomBytes(6).toString('hex')}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url: databaseUrl(serverUrl, name), drop };
}

export function useTempAppDirs(options: { personas?: Record<string, string>; skills?: Record<string, Record<string, string>> } = {}): TempAppDirs {
  const dirs = {} as TempAppDirs;
  let database: ReturnType<typeof testDatabase> | undefined;
  beforeAll(async () => {
    if (storeOnPostgres) {
      database = testDatabase();
      process.env.AGENTCSD_DATABASE_URL = database.url;
    }
    dirs.root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-test-'));
    dirs.dataDir = path.join(dirs.root, 'data');
    dirs.personasDir = path.join(dirs.root, 'personas');
    fs.mkdirSync(dirs.personasDir, { recursive: true });
    for (const [name, content] of Object.entries(options.personas ?? {})) {
      fs.writeFileSync(path.join(dirs.personasDir, `${name}.md`), content);
    }
    dirs.skillsDir = path.join(dirs.root, 'skills');
    for (const [name, files] of Object.entries(options.skills ?? {})) {
      for (const [file, content] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dirs.skillsDir, name, file)), { recursive: true });
        fs.writeFileSync(path.join(dirs.skillsDir, name, file), content);
      }
    }
    process.env.AGENTCSD_DATA_DIR = dirs.dataDir;
    process.env.AGENTCSD_PERSONAS_DIR = dirs.personasDir;
    process.env.AGENTCSD_SKILLS_DIR = dirs.skillsDir;
  });
  afterAll(async () => {
    await closeDb();
    await database?.drop();
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });
  return dirs;
}

/** A stable fingerprint of a folder (names, sizes and bytes) to prove nothing changed. */
export function folderFingerprint(dir: string): string {
  if (!fs.existsSync(dir)) return '<missing>';
  const entries: string[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (entry.isDirectory()) {
        entries.push(`${relative}/`);
        walk(full);
      } else if (entry.isSymbolicLink()) {
        entries.push(`${relative} -> ${fs.readlinkSync(full)}`);
      } else {
        entries.push(`${relative} ${fs.readFileSync(full).toString('base64')}`);
      }
    }
  };
  walk(dir);
  return entries.join('\n');
}
