// The sandbox as root (issue 41 §13): the sandbox runs as nobody, who may not be able to walk to
// the data folder (a VPS's /root is 0700). Each call then gets a mount namespace of its own in
// which root binds the workspace (checked to be the folder node opened) and the skills into a
// folder nobody can enter but not list, and bubblewrap takes them from there — the parents' modes
// do not matter. sandbox.ts builds the rest of the command line.
import fs from 'node:fs';

/**
 * Where the call's own mount namespace puts what bubblewrap binds — a tmpfs mounted there in that
 * namespace only, 0711. The folder itself is root's, in root's /run (no other user can put a link
 * in its place).
 */
export const ROOT_STAGING_DIR = '/run/agentcsd-sandbox';

/** The staging folder, made if needed; throws when it is not a folder only root can write. */
export function rootStagingDir(): string {
  fs.mkdirSync(ROOT_STAGING_DIR, { recursive: true, mode: 0o711 });
  const stat = fs.lstatSync(ROOT_STAGING_DIR);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new Error(`${ROOT_STAGING_DIR} must be a folder of root's that only root can write`);
  }
  if ((stat.mode & 0o111) !== 0o111) fs.chmodSync(ROOT_STAGING_DIR, 0o711);
  return ROOT_STAGING_DIR;
}

/**
 * As root: 'staged' (a mount namespace per call) unless the probe found that this machine refuses
 * one (a container without CAP_SYS_ADMIN): then 'direct' — nobody's bubblewrap binds the workspace
 * itself, which needs its parents enterable (the probe's reason says so).
 */
export const rootStaging: { mode: 'staged' | 'direct' } = { mode: 'staged' };

/**
 * Run as root in the call's new mount namespace, then exec's the rest: a tmpfs on the staging
 * folder; the workspace bound at workspace/ — and refused unless it is the folder node opened
 * (device and inode), so a path swapped meanwhile never becomes the workspace; each read-only
 * folder bound at ro/N. Arguments: staging, expected dev:ino, workspace, N host folders, `--`, command.
 */
const STAGE_SCRIPT = [
  'set -eu',
  'stage=$1; expected=$2; workspace=$3; shift 3',
  'mount -t tmpfs -o mode=0711,size=65536 agentcsd-sandbox "$stage"',
  'mkdir "$stage/workspace" "$stage/ro"',
  'mount --bind "$workspace" "$stage/workspace"',
  '[ "$(stat -c %d:%i "$stage/workspace")" = "$expected" ] || { echo "the workspace changed before the sandbox started" >&2; exit 125; }',
  'n=0',
  'while [ "$1" != "--" ]; do n=$((n + 1)); mkdir "$stage/ro/$n"; mount --bind "$1" "$stage/ro/$n"; shift; done',
  'shift',
  'exec "$@"',
].join('\n');

/** `unshare … sh -c STAGE_SCRIPT … --`: what the command after it runs inside (its workspace at `stage`/workspace, the hosts at `stage`/ro/N). */
export function stagingPrefix(input: { stage: string; workspace: { dir: string; id: string }; hosts: readonly string[] }): string[] {
  return ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', STAGE_SCRIPT, 'agentcsd-stage', input.stage, input.workspace.id, input.workspace.dir, ...input.hosts, '--'];
}
