// One app process per data folder (issue 19 §5, until the store moves to PostgreSQL): the folder's
// SQLite database, logs and workspaces belong to the process whose lock file is in it. A second
// process started on the same folder — another `npm run dev` in another terminal, another port —
// would run every active session's mind a second time (two Subconscious loops writing the same
// cycle numbers) and, on its way out, mark them paused under the first one's feet; it now stops
// before it opens the database, saying which process holds the folder. A lock left by a process
// that died (kill -9, a crash, a power cut) is taken over: its pid is not running any more.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE = 'agentcsd.lock';

interface LockRecord {
  pid: number;
  host: string;
  startedAt: string;
  port?: number;
}

export class DataFolderInUseError extends Error {
  constructor(
    readonly holder: LockRecord,
    readonly dataDir: string,
  ) {
    super(
      `${dataDir} is in use by another AgentCSD process (pid ${holder.pid}${holder.port ? `, port ${holder.port}` : ''}, since ${holder.startedAt}). ` +
        'Stop it first, or give this one its own folder with AGENTCSD_DATA_DIR.',
    );
    this.name = 'DataFolderInUseError';
  }
}

/** True when `pid` is a live process on this machine (EPERM: alive, but someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(file: string): LockRecord | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockRecord>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? (parsed as LockRecord) : null;
  } catch {
    return null; // missing, or torn by a crash mid-write: not a holder
  }
}

/**
 * The data folder is the owner's alone (docs/security.md): made 0700; an existing one that others
 * could read or write is tightened at start, and the log says so (red-team round 4: it was 0755).
 * The sandbox later makes it 0711 when the app runs as root (enterable, never listable).
 */
export function keepPrivate(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dataDir).mode & 0o777;
  if ((mode & 0o066) === 0) return;
  fs.chmodSync(dataDir, mode & ~0o077 & 0o700);
  console.log(`[data] ${dataDir} was readable by others (mode ${mode.toString(8)}): now 0700`);
}

export interface DataFolderLock {
  release(): void;
}

/**
 * Takes the folder for this process, or throws DataFolderInUseError naming the holder. The lock
 * is created atomically (`wx`); a stale one (dead pid on this host, or unreadable) is replaced.
 */
export async function lockDataFolder(dataDir: string, details: { port?: number } = {}): Promise<DataFolderLock> {
  keepPrivate(dataDir);
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockRecord = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), ...details };
  const body = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, body, { flag: 'wx', mode: 0o600 });
      // Two processes replacing the same stale lock at once: the later one removed the earlier
      // one's file. Whoever finds another's lock after a moment has lost.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const holder = read(file);
      if (holder?.pid !== process.pid) throw new DataFolderInUseError(holder ?? mine, dataDir);
      return { release: () => releaseIfMine(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = read(file);
    if (holder && holder.pid !== process.pid && (holder.host !== mine.host || alive(holder.pid))) throw new DataFolderInUseError(holder, dataDir);
    // Stale (its process is gone) or ours from before: remove it and create ours atomically again,
    // so of two processes taking over at once exactly one wins.
    fs.rmSync(file, { force: true });
  }
  throw new Error(`Could not take ${file}: it keeps changing`);
}

function releaseIfMine(file: string): void {
  if (read(file)?.pid === process.pid) fs.rmSync(file, { force: true });
}
