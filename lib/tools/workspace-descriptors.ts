// Walking a workspace by descriptors, never by names resolved twice. A name checked and then
// opened again can be swapped for a symlink in between (a sandboxed process renaming folders in
// a loop), so every step here opens one name *relative to its parent's open descriptor* with
// O_NOFOLLOW — the kernel's openat(2), reached through /proc/self/fd/<dir>/<name> since Node has
// no openat. A symlink met on the way fails the open (ELOOP, or ENOTDIR for O_DIRECTORY) instead
// of being followed, whatever was checked before.
import fs from 'node:fs';
import path from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
export const DIRECTORY_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
export const READ_FILE_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** A path that names `name` inside the directory open as `dirFd` (the kernel resolves the fd, not a name). */
export function atPath(dirFd: number, name?: string): string {
  if (name === undefined) return `/proc/self/fd/${dirFd}`;
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new Error(`not a single path segment: ${JSON.stringify(name)}`);
  }
  return `/proc/self/fd/${dirFd}/${name}`;
}

/** The real path the kernel holds for an open descriptor. */
export function descriptorPath(fd: number): string {
  return fs.readlinkSync(`/proc/self/fd/${fd}`);
}

/** True when the error says a symlink (or something that is no folder) stood where a folder was opened. */
export function isLinkRefusal(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOOP' || code === 'ENOTDIR';
}

/** Opens the workspace root itself (a real path, checked once when the workspace was made). */
export function openRoot(root: string): number {
  return fs.openSync(root, DIRECTORY_FLAGS);
}

/** Opens one entry of an open directory without following a symlink. */
export function openAt(dirFd: number, name: string, flags: number, mode?: number): number {
  return fs.openSync(atPath(dirFd, name), flags | O_NOFOLLOW, mode);
}

/**
 * Opens `relative` (segments below the root, no `..`) one segment at a time from the root's
 * descriptor: folders with O_DIRECTORY|O_NOFOLLOW, the last with `lastFlags`. Every descriptor
 * opened on the way is closed but the returned one.
 */
export function openBeneath(root: string, relative: string, lastFlags: number): number {
  const segments = relative ? relative.split(path.sep).filter((segment) => segment && segment !== '.') : [];
  if (segments.includes('..')) throw new Error('openBeneath takes a path without ..');
  let current = openRoot(root);
  try {
    for (const [index, segment] of segments.entries()) {
      const last = index === segments.length - 1;
      const next = openAt(current, segment, last ? lastFlags : DIRECTORY_FLAGS);
      fs.closeSync(current);
      current = next;
    }
    if (segments.length === 0 && lastFlags !== DIRECTORY_FLAGS) {
      // The root asked for with other flags (a file open of the workspace itself): not a file.
      const error = new Error('the workspace itself is a folder') as NodeJS.ErrnoException;
      error.code = 'EISDIR';
      throw error;
    }
    return current;
  } catch (error) {
    fs.closeSync(current);
    throw error;
  }
}

/** The entries of an open directory, sorted by name so listings are stable. */
export function readDirectory(dirFd: number): fs.Dirent[] {
  return fs.readdirSync(atPath(dirFd), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
}

export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed.
  }
}
