// Points the app's data and personas folders at fresh temporary folders for one test file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { closeDb } from '@/lib/store/db';

export interface TempAppDirs {
  root: string;
  dataDir: string;
  personasDir: string;
}

export function useTempAppDirs(options: { personas?: Record<string, string> } = {}): TempAppDirs {
  const dirs = {} as TempAppDirs;
  beforeAll(() => {
    dirs.root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-test-'));
    dirs.dataDir = path.join(dirs.root, 'data');
    dirs.personasDir = path.join(dirs.root, 'personas');
    fs.mkdirSync(dirs.personasDir, { recursive: true });
    for (const [name, content] of Object.entries(options.personas ?? {})) {
      fs.writeFileSync(path.join(dirs.personasDir, `${name}.md`), content);
    }
    process.env.AGENTCSD_DATA_DIR = dirs.dataDir;
    process.env.AGENTCSD_PERSONAS_DIR = dirs.personasDir;
  });
  afterAll(async () => {
    await closeDb();
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
