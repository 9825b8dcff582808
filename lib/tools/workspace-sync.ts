// A session's workspace follows its mind to another machine (issue 31): in a cluster, the process
// holding the session pushes the workspace's files to the database a moment after each tool call
// and when it lets the session go (only what changed since its last push, by size and mtime, and
// only under its lease epoch); the process that takes the session pulls them when its copy is
// older. Regular files only (a symbolic link is not followed or synced), up to a cap per workspace
// (AGENTCSD_WORKSPACE_SYNC_MB, default 50): a workspace over it keeps its last copy within the cap
// in the database, and Settings › Cluster says so. Pulled paths go through writeInside, like any
// path from a model: nothing lands outside the workspace. Alone (SQLite) nothing is synced.
import fs from 'node:fs';
import path from 'node:path';
import { appPaths } from '@/lib/config/env';
import { FencedWriteError } from '@/lib/store/lease-fence';
import {
  listSessionFilePaths,
  markWorkspaceOverCap,
  readSessionFiles,
  readWorkspaceSync,
  saveWorkspace,
  sessionFilesPool,
} from '@/lib/store/session-files';
import { ensureWorkspace, workspaceDirFor, writeInside } from './workspace';
import { errorText } from '@/lib/errors/error-text';

/** What this machine last pushed or pulled: the generation, and each file's size and mtime then. */
interface Marker {
  generation: number;
  files: Record<string, [number, number]>;
}

interface LocalFile {
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

export interface SyncReport {
  pushed?: number;
  removed?: number;
  pulled?: number;
  overCap?: boolean;
  generation?: number;
}

const MAX_FILES = 10_000;
/** The temporary names writeInside renames from: never synced. */
const TEMPORARY = /\.agentcsd-\d+-\d+\.tmp$/;

export class WorkspaceSync {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly options: { owner: string; capBytes: number; debounceMs?: number }) {}

  /** A tool call ended: the workspace is pushed a moment later (several calls, one push). */
  touched(sessionId: string): void {
    clearTimeout(this.timers.get(sessionId));
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      void this.push(sessionId).catch((error: unknown) => {
        if (!(error instanceof FencedWriteError)) console.error(`[workspace] session ${sessionId} could not be synced`, error instanceof Error ? error.message : error);
      });
    }, this.options.debounceMs ?? 1_500);
    timer.unref();
    this.timers.set(sessionId, timer);
  }

  /** Pushes what changed since this machine's last push or pull. */
  push(sessionId: string): Promise<SyncReport> {
    clearTimeout(this.timers.get(sessionId));
    this.timers.delete(sessionId);
    return this.serial(sessionId, () => this.pushNow(sessionId));
  }

  /** Brings the database's copy here when it is newer than this machine's. */
  pull(sessionId: string): Promise<SyncReport> {
    return this.serial(sessionId, () => this.pullNow(sessionId));
  }

  /** Pushes every workspace waiting for its push (a graceful stop). */
  async flush(): Promise<void> {
    await Promise.all([...this.timers.keys()].map((id) => this.push(id).catch(() => undefined)));
  }

  private serial<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(sessionId) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.chains.set(sessionId, next);
    void next.finally(() => this.chains.get(sessionId) === next && this.chains.delete(sessionId)).catch(() => undefined);
    return next;
  }

  private async pushNow(sessionId: string): Promise<SyncReport> {
    const pool = await sessionFilesPool();
    if (!pool) return {};
    const local = listLocalFiles(workspaceDirFor(sessionId));
    const bytes = local.reduce((sum, file) => sum + file.size, 0);
    if (bytes > this.options.capBytes || local.length > MAX_FILES) {
      await markWorkspaceOverCap(pool, { sessionId, owner: this.options.owner, files: local.length, bytes });
      return { overCap: true };
    }
    const marker = readMarker(sessionId);
    const changed = local.filter((file) => !marker || marker.files[file.path]?.[0] !== file.size || marker.files[file.path]?.[1] !== file.mtimeMs);
    const present = new Set(local.map((file) => file.path));
    const known = marker ? Object.keys(marker.files) : await listSessionFilePaths(pool, sessionId, 'workspace');
    const removed = known.filter((file) => !present.has(file));
    if (marker && changed.length === 0 && removed.length === 0) return { generation: marker.generation };
    const contents = changed.map((file) => ({ path: file.path, content: fs.readFileSync(file.absolute) }));
    const generation = await saveWorkspace(pool, { sessionId, owner: this.options.owner, changed: contents, removed, files: local.length, bytes });
    writeMarker(sessionId, { generation, files: Object.fromEntries(local.map((file) => [file.path, [file.size, file.mtimeMs]])) });
    return { pushed: changed.length, removed: removed.length, generation };
  }

  private async pullNow(sessionId: string): Promise<SyncReport> {
    const pool = await sessionFilesPool();
    if (!pool) return {};
    const stored = await readWorkspaceSync(pool, sessionId);
    const marker = readMarker(sessionId);
    if (!stored || stored.generation === 0 || (marker && marker.generation >= stored.generation)) return {};
    const root = ensureWorkspace(sessionId);
    const files = await readSessionFiles(pool, sessionId, 'workspace');
    const wanted = new Set<string>();
    for (const file of files) {
      try {
        writeInside(root, file.path, file.content);
        wanted.add(file.path);
      } catch (error) {
        console.warn(`[workspace] session ${sessionId}: ${file.path} was not restored: ${errorText(error)}`);
      }
    }
    // A mirror: what the newer copy does not have goes.
    for (const file of listLocalFiles(root)) if (!wanted.has(file.path)) fs.rmSync(file.absolute, { force: true });
    const now = listLocalFiles(root);
    writeMarker(sessionId, { generation: stored.generation, files: Object.fromEntries(now.map((file) => [file.path, [file.size, file.mtimeMs]])) });
    return { pulled: wanted.size, generation: stored.generation };
  }
}

/** The workspace's regular files (symbolic links and anything else left out), relative paths with /. */
function listLocalFiles(root: string): LocalFile[] {
  const found: LocalFile[] = [];
  const walk = (folder: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const absolute = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(absolute);
      else if (entry.isFile() && !TEMPORARY.test(entry.name)) {
        const stat = fs.lstatSync(absolute);
        found.push({ path: path.relative(root, absolute).split(path.sep).join('/'), absolute, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
      }
      if (found.length > MAX_FILES) return;
    }
  };
  walk(root);
  return found;
}

function markerPath(sessionId: string): string {
  workspaceDirFor(sessionId); // the id is checked the same way
  return path.join(appPaths().dataDir, 'workspace-sync', `${sessionId}.json`);
}

function readMarker(sessionId: string): Marker | null {
  try {
    return JSON.parse(fs.readFileSync(markerPath(sessionId), 'utf8')) as Marker;
  } catch {
    return null;
  }
}

function writeMarker(sessionId: string, marker: Marker): void {
  const file = markerPath(sessionId);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(marker), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}
