// The sandbox as root (issue 41 §13): the sandbox runs as nobody, who may not be able to walk to
// the data folder (a VPS's /root is 0700). Each call then gets a mount namespace of its own in
// which root binds the workspace (checked to be the folder node opened) and the skills into a
// folder nobody can enter but not list, and bubblewrap takes them from there — the parents' modes
// do not matter. sandbox.ts builds the rest of the command line.
import fs from 'node:fs';
import path from 'node:path';
import { processSlot } from '@/lib/process/process-state';

/**
 * Where the call's own mount namespace puts what bubblewrap binds: `workspace/` and `ro/1`…`ro/N`,
 * empty folders on the host that each call's namespace mounts over (made once, so a call runs no
 * `mkdir` and no tmpfs: every exec counts in a tool's start, issue 43 §3). The folder is root's, in
 * root's /run (no other user can put a link in its place), 0711: nobody enters it but cannot list it.
 */
export const ROOT_STAGING_DIR = '/run/agentcsd-sandbox';
/** How many read-only mount points are made (-1: not even the folder), for the process. */
const staged = processSlot('tools.staged-read-only', () => ({ count: -1 })).value;

/** The staging folder with its mount points for `readOnly` folders, made if needed; throws when it is not a folder only root can write. */
export function rootStagingDir(readOnly = 0): string {
  if (staged.count < 0 || !fs.existsSync(path.join(ROOT_STAGING_DIR, 'workspace'))) {
    fs.mkdirSync(ROOT_STAGING_DIR, { recursive: true, mode: 0o711 });
    const stat = fs.lstatSync(ROOT_STAGING_DIR);
    if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
      throw new Error(`${ROOT_STAGING_DIR} must be a folder of root's that only root can write`);
    }
    if ((stat.mode & 0o777) !== 0o711) fs.chmodSync(ROOT_STAGING_DIR, 0o711);
    for (const name of ['workspace', 'ro']) {
      fs.mkdirSync(path.join(ROOT_STAGING_DIR, name), { recursive: true, mode: 0o711 });
      const child = fs.lstatSync(path.join(ROOT_STAGING_DIR, name));
      if (!child.isDirectory() || child.uid !== 0) throw new Error(`${ROOT_STAGING_DIR}/${name} must be a folder of root's`);
    }
    staged.count = 0;
  }
  for (; staged.count < readOnly; staged.count++) fs.mkdirSync(path.join(ROOT_STAGING_DIR, 'ro', String(staged.count + 1)), { recursive: true, mode: 0o711 });
  return ROOT_STAGING_DIR;
}

/**
 * As root: 'staged' (a mount namespace per call) unless the probe found that this machine refuses
 * one (a container without CAP_SYS_ADMIN): then 'direct' — nobody's bubblewrap binds the workspace
 * itself, which needs its parents enterable (the probe's reason says so).
 */
export const rootStaging: { mode: 'staged' | 'direct' } = { mode: 'staged' };

/**
 * Run as root in the call's new mount namespace, then exec's the rest: the workspace — the folder
 * node opened, passed as fd 3 — bound at workspace/, and refused unless what is mounted there is
 * that very folder (`-ef`, a shell builtin: same device and inode), so a path swapped meanwhile never
 * becomes the workspace; fd 3 (and 4-9) closed, so nothing after holds a handle
 * on a host folder (`..` from it would lead out of the sandbox); each read-only folder bound at ro/N;
 * then the resource limits, with the shell's own `ulimit` (one program fewer than prlimit). No other
 * program runs but `mount`. Arguments: staging, processes, file blocks (512 B), address space (KiB),
 * open files, N host folders, `--`, command.
 */
const STAGE_SCRIPT = [
  'set -eu',
  'stage=$1; processes=$2; blocks=$3; kib=$4; files=$5; shift 5',
  'mount --bind /proc/self/fd/3 "$stage/workspace"',
  '[ /proc/self/fd/3 -ef "$stage/workspace" ] || { echo "the workspace changed before the sandbox started" >&2; exit 125; }',
  // fd 3, and any other low handle this process was given beyond the standard three (dash names fds 0-9 only).
  'exec 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-',
  'n=0',
  'while [ "$1" != "--" ]; do n=$((n + 1)); mount --bind "$1" "$stage/ro/$n"; shift; done',
  'shift',
  'ulimit -p "$processes"; ulimit -f "$blocks"; ulimit -v "$kib"; ulimit -n "$files"; ulimit -c 0',
  'exec "$@"',
].join('\n');

/** `unshare … sh -c STAGE_SCRIPT … --`: what the command after it runs inside (its workspace, fd 3, at `stage`/workspace; the hosts at `stage`/ro/N). */
export function stagingPrefix(input: { stage: string; hosts: readonly string[]; limits: { processes: number; fileBytes: number; addressBytes: number; openFiles: number } }): string[] {
  const { limits } = input;
  const numbers = [limits.processes, Math.floor(limits.fileBytes / 512), Math.floor(limits.addressBytes / 1024), limits.openFiles].map(String);
  return ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', STAGE_SCRIPT, 'agentcsd-stage', input.stage, ...numbers, ...input.hosts, '--'];
}
