// A session's workspace (data/workspaces/{session_id}/): the only place its tools may touch.
// Paths from a model are resolved lexically, then every file is checked again *after* it is
// opened (the kernel's own path of the open descriptor, and its link count), so a symlink, a
// hard link or a rename race cannot lead a read or a write outside.
import fs from 'node:fs';
import path from 'node:path';
import { appPaths } from '@/lib/config/env';
import { SANDBOX_NOBODY_UID, SANDBOX_WORKDIR, letSandboxReach, prepareWorkspaceOwnership } from '@/lib/tools/sandbox';

export class WorkspacePathError extends Error {
  readonly kind = 'path_refused';
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function workspaceDirFor(sessionId: string, dataDir = appPaths().dataDir): string {
  if (!SESSION_ID.test(sessionId)) throw new WorkspacePathError(`invalid session id for a workspace: ${sessionId}`);
  return path.join(dataDir, 'workspaces', sessionId);
}

/** Creates the workspace when missing and returns its real path. */
export function ensureWorkspace(sessionId: string, dataDir = appPaths().dataDir): string {
  const dir = workspaceDirFor(sessionId, dataDir);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    prepareWorkspaceOwnership(dir);
    letSandboxReach(dataDir);
  }
  return fs.realpathSync(dir);
}

/**
 * Maps a model-given path to an absolute host path inside `root` (a real path), lexically.
 * Accepts relative paths and absolute ones under /workspace (what the sandbox calls it).
 */
export function resolveWorkspacePath(root: string, requested: string): string {
  if (typeof requested !== 'string' || requested.length === 0) return root;
  if (requested.includes('\0')) throw new WorkspacePathError('the path contains a NUL byte');
  if (requested.length > 4096) throw new WorkspacePathError('the path is too long');
  let relative = requested;
  if (path.isAbsolute(requested)) {
    const normalised = path.posix.normalize(requested);
    if (normalised === SANDBOX_WORKDIR) return root;
    if (!normalised.startsWith(`${SANDBOX_WORKDIR}/`)) {
      throw new WorkspacePathError(`${requested} is outside the workspace: use a path relative to it`);
    }
    relative = normalised.slice(SANDBOX_WORKDIR.length + 1);
  }
  const resolved = path.resolve(root, relative);
  if (!isInside(root, resolved)) throw new WorkspacePathError(`${requested} is outside the workspace`);
  return resolved;
}

export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(`${root}${path.sep}`);
}

/** The path relative to the workspace, as shown to the model and the user. */
export function displayPath(root: string, absolute: string): string {
  return path.relative(root, absolute) || '.';
}

/** The real path the kernel holds for an open descriptor. */
function descriptorPath(fd: number): string {
  return fs.readlinkSync(`/proc/self/fd/${fd}`);
}

/**
 * The real path of an existing file or directory, refused when it leads outside the root
 * (through a symlink anywhere on the way).
 */
export function realPathInside(root: string, absolute: string, requested: string): string {
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new WorkspacePathError(`${requested} does not exist`);
    throw error;
  }
  if (!isInside(root, real)) throw new WorkspacePathError(`${requested} leads outside the workspace`);
  return real;
}

/** Opens a regular file inside the workspace for reading and checks what was really opened. */
export function openInsideForRead(root: string, requested: string): { fd: number; absolute: string; size: number } {
  const absolute = realPathInside(root, resolveWorkspacePath(root, requested), requested);
  const fd = fs.openSync(absolute, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new WorkspacePathError(`${requested} is not a regular file`);
    assertDescriptorInside(root, fd, stat, requested);
    return { fd, absolute, size: stat.size };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function assertDescriptorInside(root: string, fd: number, stat: fs.Stats, requested: string): void {
  if (!isInside(root, descriptorPath(fd))) throw new WorkspacePathError(`${requested} leads outside the workspace`);
  // A hard link shares its inode with a name we cannot see: it may be a file outside.
  if (stat.isFile() && stat.nlink > 1) {
    throw new WorkspacePathError(`${requested} has ${stat.nlink} hard links; files linked from elsewhere are refused`);
  }
}

/** Reads a whole file inside the workspace, up to `maxBytes`. */
export function readInside(root: string, requested: string, maxBytes: number): { text: string; size: number; truncated: boolean } {
  const { fd, size } = openInsideForRead(root, requested);
  try {
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const count = fs.readSync(fd, buffer, read, length - read, read);
      if (count === 0) break;
      read += count;
    }
    return { text: buffer.subarray(0, read).toString('utf8'), size, truncated: size > maxBytes };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a file inside the workspace atomically: missing folders are created (each checked),
 * the content goes to a temporary file whose real path is checked once open, then renamed over
 * the target. A rename replaces the name, never the inode, so a hard link is not written through.
 */
export function writeInside(root: string, requested: string, content: string): { absolute: string; created: boolean } {
  const absolute = resolveWorkspacePath(root, requested);
  if (absolute === root) throw new WorkspacePathError('a file path is needed, not the workspace itself');
  const parent = ensureFolderInside(root, path.dirname(absolute), requested);
  const target = path.join(parent, path.basename(absolute));
  let created = true;
  try {
    const stat = fs.lstatSync(target);
    created = false;
    if (stat.isSymbolicLink()) throw new WorkspacePathError(`${requested} is a symbolic link; write to the file it names`);
    if (!stat.isFile()) throw new WorkspacePathError(`${requested} is not a regular file`);
    if (stat.nlink > 1) {
      throw new WorkspacePathError(`${requested} has ${stat.nlink} hard links; files linked from elsewhere are refused`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temporary = path.join(parent, `.${path.basename(absolute)}.agentcsd-${process.pid}-${Date.now()}.tmp`);
  const fd = fs.openSync(
    temporary,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o644,
  );
  try {
    if (!isInside(root, descriptorPath(fd))) throw new WorkspacePathError(`${requested} leads outside the workspace`);
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
    handOverToSandbox(fd);
    fs.closeSync(fd);
    fs.renameSync(temporary, target);
  } catch (error) {
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed.
    }
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return { absolute: target, created };
}

/** Creates (and checks) each missing folder between the root and `folder`. */
function ensureFolderInside(root: string, folder: string, requested: string): string {
  const relative = path.relative(root, folder);
  let current = root;
  for (const segment of relative ? relative.split(path.sep) : []) {
    current = path.join(current, segment);
    try {
      fs.mkdirSync(current, { mode: 0o755 });
      if (process.getuid?.() === 0) fs.chownSync(current, SANDBOX_NOBODY_UID, SANDBOX_NOBODY_UID);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    current = realPathInside(root, current, requested);
    if (!fs.statSync(current).isDirectory()) throw new WorkspacePathError(`${displayPath(root, current)} is not a folder`);
  }
  return current;
}

/** When the app runs as root the sandbox runs as nobody: files we write must be its own. */
function handOverToSandbox(fd: number): void {
  if (process.getuid?.() === 0) fs.fchownSync(fd, SANDBOX_NOBODY_UID, SANDBOX_NOBODY_UID);
}
