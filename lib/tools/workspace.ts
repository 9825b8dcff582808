// A session's workspace (data/workspaces/{session_id}/): the only place its tools may touch.
// Paths from a model are resolved lexically, then opened by descriptors one segment at a time
// (workspace-descriptors.ts) and checked again *after* they are open (the kernel's own path of
// the descriptor, and its link count), so a symlink, a hard link or a rename race cannot lead a
// read or a write outside.
import fs from 'node:fs';
import path from 'node:path';
import { appPaths } from '@/lib/config/env';
import { SANDBOX_NOBODY_UID, SANDBOX_WORKDIR, letSandboxReach, prepareWorkspaceOwnership } from '@/lib/tools/sandbox';
import {
  DIRECTORY_FLAGS,
  READ_FILE_FLAGS,
  atPath,
  closeQuietly,
  descriptorPath,
  isLinkRefusal,
  openAt,
  openBeneath,
} from '@/lib/tools/workspace-descriptors';

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

/**
 * The real path of an existing file or directory, refused when it leads outside the root
 * (through a symlink anywhere on the way). Only a *check*: what is then opened is opened again
 * by descriptors (openRealBeneath), so a name swapped after this check is not followed.
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

/**
 * Opens what `requested` names: symlinks *inside* the workspace are resolved first (and checked),
 * then the real path is opened one segment at a time from the root with O_NOFOLLOW. A symlink
 * swapped in after the check makes the open fail; it is never followed.
 */
export function openRealBeneath(root: string, requested: string, flags: number): { fd: number; real: string } {
  const real = realPathInside(root, resolveWorkspacePath(root, requested), requested);
  try {
    return { fd: openBeneath(root, path.relative(root, real), flags), real };
  } catch (error) {
    if (isLinkRefusal(error)) throw new WorkspacePathError(`${requested} changed while it was opened (a symbolic link appeared on the way)`);
    throw error;
  }
}

/** Opens a regular file inside the workspace for reading and checks what was really opened. */
export function openInsideForRead(root: string, requested: string): { fd: number; absolute: string; size: number } {
  const { fd, real } = openRealBeneath(root, requested, READ_FILE_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new WorkspacePathError(`${requested} is not a regular file`);
    assertDescriptorInside(root, fd, stat, requested);
    return { fd, absolute: real, size: stat.size };
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

/** Reads a file inside the workspace, up to `maxBytes`, as bytes. */
export function readBytesInside(root: string, requested: string, maxBytes: number): { bytes: Buffer; size: number; truncated: boolean } {
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
    return { bytes: buffer.subarray(0, read), size, truncated: size > maxBytes };
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a whole file inside the workspace, up to `maxBytes`. */
export function readInside(root: string, requested: string, maxBytes: number): { text: string; size: number; truncated: boolean } {
  const { bytes, size, truncated } = readBytesInside(root, requested, maxBytes);
  return { text: bytes.toString('utf8'), size, truncated };
}

/**
 * Writes a file inside the workspace atomically: missing folders are created (each by its
 * parent's descriptor), the content goes to a temporary file created in the parent's descriptor,
 * then renamed over the target there. Nothing is resolved by name after a check, so a folder
 * swapped for a symlink mid-call cannot lead the write outside; a rename replaces the name, never
 * the inode, so a hard link is not written through.
 */
export function writeInside(root: string, requested: string, content: string | Uint8Array): { absolute: string; created: boolean } {
  const absolute = resolveWorkspacePath(root, requested);
  if (absolute === root) throw new WorkspacePathError('a file path is needed, not the workspace itself');
  const name = path.basename(absolute);
  const parentFd = openFolderCreating(root, path.dirname(absolute), requested);
  try {
    const parent = descriptorPath(parentFd);
    if (!isInside(root, parent)) throw new WorkspacePathError(`${requested} leads outside the workspace`);
    let created = true;
    try {
      const stat = fs.lstatSync(atPath(parentFd, name));
      created = false;
      if (stat.isSymbolicLink()) throw new WorkspacePathError(`${requested} is a symbolic link; write to the file it names`);
      if (!stat.isFile()) throw new WorkspacePathError(`${requested} is not a regular file`);
      if (stat.nlink > 1) {
        throw new WorkspacePathError(`${requested} has ${stat.nlink} hard links; files linked from elsewhere are refused`);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const temporary = `.${name}.agentcsd-${process.pid}-${Date.now()}.tmp`.slice(-250);
    const fd = openAt(parentFd, temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
    try {
      if (typeof content === 'string') fs.writeSync(fd, content);
      else fs.writeSync(fd, content);
      fs.fsyncSync(fd);
      handOverToSandbox(fd);
      fs.closeSync(fd);
      fs.renameSync(atPath(parentFd, temporary), atPath(parentFd, name));
    } catch (error) {
      closeQuietly(fd);
      fs.rmSync(atPath(parentFd, temporary), { force: true });
      throw error;
    }
    return { absolute: path.join(parent, name), created };
  } finally {
    fs.closeSync(parentFd);
  }
}

/**
 * Opens `folder` (lexically inside the root) by descriptors, creating what is missing: the
 * deepest existing ancestor is resolved and checked like any path, then opened from the root
 * segment by segment; each missing folder is made inside its parent's descriptor and opened the
 * same way.
 */
function openFolderCreating(root: string, folder: string, requested: string): number {
  const missing: string[] = [];
  let existing = folder;
  while (existing !== root && !fs.existsSync(existing)) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let current: number;
  try {
    current = openRealBeneathFolder(root, existing, requested);
  } catch (error) {
    if (isLinkRefusal(error)) throw new WorkspacePathError(`${displayPath(root, existing)} is not a folder`);
    throw error;
  }
  try {
    for (const segment of missing) {
      try {
        fs.mkdirSync(atPath(current, segment), { mode: 0o755 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let next: number;
      try {
        next = openAt(current, segment, DIRECTORY_FLAGS);
      } catch (error) {
        if (isLinkRefusal(error)) throw new WorkspacePathError(`${requested}: ${segment} is not a folder`);
        throw error;
      }
      fs.closeSync(current);
      current = next;
      if (process.getuid?.() === 0) fs.fchownSync(current, SANDBOX_NOBODY_UID, SANDBOX_NOBODY_UID);
    }
    return current;
  } catch (error) {
    closeQuietly(current);
    throw error;
  }
}

function openRealBeneathFolder(root: string, absolute: string, requested: string): number {
  const real = realPathInside(root, absolute, requested);
  return openBeneath(root, path.relative(root, real), DIRECTORY_FLAGS);
}

/** When the app runs as root the sandbox runs as nobody: files we write must be its own. */
function handOverToSandbox(fd: number): void {
  if (process.getuid?.() === 0) fs.fchownSync(fd, SANDBOX_NOBODY_UID, SANDBOX_NOBODY_UID);
}
