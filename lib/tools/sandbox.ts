// The code sandbox (ARCHITECTURE §10.2): every `bash` and `python` call runs inside bubblewrap.
// Read-only system, the session's workspace the only writable place, no network, an empty
// environment but for an allow-list, its own PID namespace (a grandchild cannot outlive the
// call), resource limits, a timeout, and output capped with the dropped bytes counted. Without
// a working bubblewrap the shell tools are disabled with the reason — never run unsandboxed.
// As root, each call is staged in a mount namespace of its own first (sandbox-staging.ts).
import { spawn, execFile, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { appPaths } from '@/lib/config/env';
import { rootStaging, rootStagingDir, stagingPrefix } from './sandbox-staging';
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

const execFileAsync = promisify(execFile);

/** The uid the sandbox runs as when the app itself runs as root (so process limits hold). */
export const SANDBOX_NOBODY_UID = 65534;
/** Processes a sandbox may start on top of those its user already runs. */
const SANDBOX_PROCESS_ALLOWANCE = 256;
const SANDBOX_FILE_SIZE_LIMIT = 256 * 1024 * 1024;
const SANDBOX_ADDRESS_SPACE_LIMIT = 4 * 1024 * 1024 * 1024;
const SANDBOX_OPEN_FILES_LIMIT = 1024;
const SANDBOX_TMP_SIZE = 256 * 1024 * 1024;
/** After SIGTERM to the sandbox's group, how long before SIGKILL. */
const KILL_GRACE_MS = 2_000;

export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';
export const SANDBOX_WORKDIR = '/workspace';
/** The child's descriptor that holds the workspace folder. */
const WORKSPACE_FD = 3;

export type SandboxStatus =
  | { available: true; bwrapVersion: string; runsAs: 'own-user' | 'nobody'; checkedAt: string }
  | { available: false; reason: string; checkedAt: string };

export interface SandboxRunRequest {
  /** Host directory bound read-write at /workspace; must exist. */
  workspaceDir: string;
  /** argv inside the sandbox, e.g. ['bash', '--noprofile', '--norc', '-c', command]. */
  argv: string[];
  timeoutMs: number;
  /** Bytes of stdout + stderr kept; the rest is counted in `droppedBytes`. */
  outputCapBytes: number;
  signal: AbortSignal;
  /** Extra variables on top of the allow-list (never secrets: the caller decides). */
  env?: Record<string, string>;
  /** Host folders bound read-only inside (a session's skills at /skills/<name>). */
  readOnlyMounts?: { host: string; inside: string }[];
  onOutput?: (chunk: { stream: 'stdout' | 'stderr'; text: string }) => void;
}

export interface SandboxRunResult {
  exitCode: number | null;
  /** The signal that ended the sandbox, when it did not exit by itself. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  droppedBytes: number;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

export class SandboxUnavailableError extends Error {
  readonly kind = 'sandbox_unavailable';
  constructor(reason: string, options?: ErrorOptions) {
    super(`The sandbox is not available: ${reason}`, options);
  }
}

/** An environment of exactly these variables for a helper process (nothing of ours leaks in). */
export function bareEnvironment(variables: Record<string, string>): NodeJS.ProcessEnv {
  // ProcessEnv is declared with the app's NODE_ENV required; a child of ours needs none of it.
  return variables as unknown as NodeJS.ProcessEnv;
}

function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Whether the sandbox's user can read a host folder, so it may be bound in: as ourselves, plain
 * access; as nobody (when the app runs as root), the "other" bits of the folder itself — root binds
 * it for bubblewrap, so the folders above it do not matter.
 */
export function sandboxCanRead(folder: string): boolean {
  try {
    if (!runningAsRoot()) {
      fs.accessSync(folder, fs.constants.R_OK | fs.constants.X_OK);
      return true;
    }
    return (fs.statSync(path.resolve(folder)).mode & 0o005) === 0o005;
  } catch {
    return false;
  }
}

/** /bin, /lib … are symlinks into /usr on merged-usr systems and directories elsewhere. */
function systemRootEntries(): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const hostPath = `/${name}`;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(hostPath);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(hostPath), hostPath);
    else if (stat.isDirectory()) args.push('--ro-bind', hostPath, hostPath);
  }
  // Only what programs need from /etc: the loader's cache, alternatives (python3, …), time zone.
  for (const file of [
    '/etc/ld.so.cache',
    '/etc/ld.so.conf',
    '/etc/ld.so.conf.d',
    '/etc/alternatives',
    '/etc/localtime',
    '/etc/nsswitch.conf',
    '/etc/os-release',
    '/etc/debian_version',
  ]) {
    args.push('--ro-bind-try', file, file);
  }
  return args;
}

/** The bubblewrap arguments for one run (pure but for reading which of /bin, /lib exist). */
export function bubblewrapArgs(options: {
  env: Record<string, string>;
  argv: string[];
  readOnlyMounts?: { host: string; inside: string }[];
  /** Where the workspace is on the host side: the descriptor node opened (default), or a folder root staged. */
  workspaceSource?: { fd: number } | { path: string };
}): string[] {
  const source = options.workspaceSource ?? { fd: WORKSPACE_FD };
  const args = [
    '--unshare-all', // net, pid, ipc, uts, cgroup, and user where possible
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    '--cap-drop',
    'ALL',
    ...systemRootEntries(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(SANDBOX_TMP_SIZE),
    '--tmpfs',
    '/tmp',
    // The workspace comes as an open descriptor (fd 3): bound exactly as node opened and
    // checked it, not as a path that could be swapped meanwhile (as root: staged, and checked there).
    ...('fd' in source ? ['--bind-fd', String(source.fd)] : ['--bind', source.path]),
    SANDBOX_WORKDIR,
    '--chdir',
    SANDBOX_WORKDIR,
    ...(options.readOnlyMounts ?? []).flatMap((mount) => ['--ro-bind', mount.host, mount.inside]),
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(options.env)) args.push('--setenv', name, value);
  args.push('--', ...options.argv);
  return args;
}

export function sandboxEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: SANDBOX_WORKDIR,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    ...extra,
  };
}

function processesOwnedBy(uid: number): number {
  let count = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.statSync(`/proc/${entry}`).uid === uid) count += 1;
    } catch {
      // The process ended while we counted.
    }
  }
  return count;
}

/**
 * The command line node spawns: resource limits (prlimit), then — when the app runs as root —
 * a drop to nobody (setpriv; root is exempt from the process limit), then bubblewrap. As root the
 * whole runs in a mount namespace of its own (unshare) where the workspace (fd 3 of the command:
 * `staged`) and the read-only folders are staged and the limits set by the shell (STAGE_SCRIPT).
 */
export function sandboxCommand(request: Pick<SandboxRunRequest, 'argv' | 'env' | 'readOnlyMounts'> & { staged?: boolean }): {
  file: string;
  args: string[];
} {
  const root = runningAsRoot();
  const uid = root ? SANDBOX_NOBODY_UID : (process.getuid?.() ?? 0);
  // The limit counts this user's processes in every namespace above the sandbox, so it is
  // set relative to what the user already runs (a desktop user has hundreds).
  const processLimit = processesOwnedBy(uid) + SANDBOX_PROCESS_ALLOWANCE;
  const limits = [
    `--nproc=${processLimit}`,
    `--fsize=${SANDBOX_FILE_SIZE_LIMIT}`,
    `--as=${SANDBOX_ADDRESS_SPACE_LIMIT}`,
    `--nofile=${SANDBOX_OPEN_FILES_LIMIT}`,
    '--core=0',
  ];
  // A folder the sandbox's user cannot read is left out rather than failing the run.
  const mounts = (request.readOnlyMounts ?? []).filter((mount) => sandboxCanRead(mount.host));
  const dropToNobody = ['setpriv', `--reuid=${SANDBOX_NOBODY_UID}`, `--regid=${SANDBOX_NOBODY_UID}`, '--clear-groups', '--'];
  if (!root || rootStaging.mode === 'direct') {
    const bwrap = bubblewrapArgs({ env: sandboxEnvironment(request.env), argv: request.argv, readOnlyMounts: mounts });
    return { file: 'prlimit', args: [...limits, '--', ...(root ? dropToNobody : []), 'bwrap', ...bwrap] };
  }
  if (!request.staged) throw new SandboxUnavailableError('as root the sandbox needs the workspace folder to stage');
  let stage: string;
  try {
    stage = rootStagingDir(mounts.length);
  } catch (error) {
    throw new SandboxUnavailableError(errorText(error), { cause: error });
  }
  const bwrap = bubblewrapArgs({
    env: sandboxEnvironment(request.env),
    argv: request.argv,
    readOnlyMounts: mounts.map((mount, index) => ({ host: `${stage}/ro/${index + 1}`, inside: mount.inside })),
    workspaceSource: { path: `${stage}/workspace` },
  });
  const staged = { processes: processLimit, fileBytes: SANDBOX_FILE_SIZE_LIMIT, addressBytes: SANDBOX_ADDRESS_SPACE_LIMIT, openFiles: SANDBOX_OPEN_FILES_LIMIT };
  const [file, ...staging] = stagingPrefix({ stage, hosts: mounts.map((mount) => mount.host), limits: staged });
  return { file: file!, args: [...staging, ...dropToNobody, 'bwrap', ...bwrap] };
}

/** Kill the sandbox's whole process group; bubblewrap's PID namespace takes the rest with it. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export async function runSandboxed(request: SandboxRunRequest): Promise<SandboxRunResult> {
  const started = performance.now();
  // As root the staging binds the folder opened here (fd 3), then closes it before the sandbox
  // starts; otherwise bubblewrap binds the path and no handle on a host folder is passed at all —
  // `..` from an inherited one would lead out of the sandbox.
  const staged = runningAsRoot() && rootStaging.mode === 'staged';
  const workspaceFd = staged ? fs.openSync(request.workspaceDir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY) : null;
  let child: ChildProcessByStdio<null, Readable, Readable>;
  try {
    const { file, args } = sandboxCommand({ ...request, staged });
    child = spawn(/*turbopackIgnore: true*/ file, args, {
      cwd: '/',
      env: bareEnvironment({ PATH: process.env.PATH ?? SANDBOX_PATH }), // nothing of ours reaches even the wrappers
      detached: true, // its own process group, killed as one
      stdio: workspaceFd === null ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', workspaceFd],
    }) as ChildProcessByStdio<null, Readable, Readable>;
  } finally {
    if (workspaceFd !== null) fs.closeSync(workspaceFd); // the child holds its own copy
  }

  const kept: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
  let keptBytes = 0;
  let droppedBytes = 0;
  const take = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const room = request.outputCapBytes - keptBytes;
    if (room <= 0) {
      droppedBytes += chunk.length;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    droppedBytes += chunk.length - part.length;
    keptBytes += part.length;
    kept[stream].push(part);
    request.onOutput?.({ stream, text: part.toString('utf8') });
  };
  child.stdout.on('data', take('stdout'));
  child.stderr.on('data', take('stderr'));

  let timedOut = false;
  let cancelled = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  const timeout = setTimeout(() => {
    timedOut = true;
    stop();
  }, request.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    stop();
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener('abort', onAbort, { once: true });

  try {
    const { exitCode, signal } = await new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, closeSignal) => resolve({ exitCode: code, signal: closeSignal }));
      },
    );
    return {
      exitCode,
      signal,
      stdout: Buffer.concat(kept.stdout).toString('utf8'),
      stderr: Buffer.concat(kept.stderr).toString('utf8'),
      droppedBytes,
      timedOut,
      cancelled,
      durationMs: performance.now() - started,
    };
  } finally {
    clearTimeout(timeout);
    if (killTimer) clearTimeout(killTimer);
    request.signal.removeEventListener('abort', onAbort);
    // Whatever is left in the group (nothing, normally) goes now.
    if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
  }
}

/**
 * Makes a workspace writable by the sandbox. When the app runs as root the sandbox runs as
 * nobody, so the workspace (and files the app writes into it) belong to nobody.
 */
export function prepareWorkspaceOwnership(target: string): void {
  if (!runningAsRoot()) return;
  fs.chownSync(target, SANDBOX_NOBODY_UID, SANDBOX_NOBODY_UID);
}

/**
 * When the app runs as root the sandbox runs as nobody, and bubblewrap (as nobody) must walk
 * to the workspace to bind it. data/ is 0700; it becomes 0711 — enterable, not listable —
 * and data/workspaces too. Nothing in data/ is readable by others (files 0600, folders 0700).
 */
export function letSandboxReach(dataDir: string): void {
  if (!runningAsRoot()) return;
  for (const folder of [dataDir, path.join(dataDir, 'workspaces')]) {
    const mode = fs.statSync(/*turbopackIgnore: true*/ folder).mode & 0o777;
    if ((mode & 0o001) === 0) fs.chmodSync(folder, (mode | 0o711) & ~0o066);
  }
}

const probed = processSlot<Promise<SandboxStatus> | undefined>('tools.sandbox-status', () => undefined);

/**
 * Runs a real sandbox once per process, in a folder beside the workspaces (so a parent folder
 * the sandbox's user cannot enter is found here, not at the first call); Settings shows it.
 */
export function probeSandbox(options: { refresh?: boolean; workspacesDir?: string } = {}): Promise<SandboxStatus> {
  if (!probed.value || options.refresh) probed.value = checkSandbox(options.workspacesDir ?? path.join(appPaths().dataDir, 'workspaces'));
  return probed.value;
}

async function checkSandbox(workspacesDir: string): Promise<SandboxStatus> {
  const checkedAt = new Date().toISOString();
  let bwrapVersion: string;
  try {
    const { stdout } = await execFileAsync('bwrap', ['--version'], { timeout: 5_000 });
    bwrapVersion = stdout.trim();
  } catch {
    return {
      available: false,
      reason: 'bubblewrap (bwrap) is not installed — on Debian or Ubuntu: sudo apt-get install bubblewrap',
      checkedAt,
    };
  }
  for (const tool of ['prlimit', ...(runningAsRoot() ? ['setpriv', 'unshare'] : [])]) {
    try {
      await execFileAsync(tool, ['--version'], { timeout: 5_000 });
    } catch {
      return { available: false, reason: `${tool} (util-linux) is not installed`, checkedAt };
    }
  }
  let probeDir: string;
  try {
    fs.mkdirSync(workspacesDir, { recursive: true });
    letSandboxReach(path.dirname(workspacesDir));
    probeDir = fs.mkdtempSync(path.join(workspacesDir, '.probe-'));
  } catch (error) {
    return { available: false, reason: `cannot create a workspace in ${workspacesDir}: ${errorText(error)}`, checkedAt };
  }
  try {
    prepareWorkspaceOwnership(probeDir);
    const probe = () =>
      runSandboxed({ workspaceDir: probeDir, argv: ['sh', '-c', 'echo ok > probe && cat probe'], timeoutMs: 10_000, outputCapBytes: 4_096, signal: new AbortController().signal });
    const works = (run: SandboxRunResult) => run.exitCode === 0 && run.stdout.trim() === 'ok';
    rootStaging.mode = 'staged';
    let result = await probe();
    if (runningAsRoot() && !works(result)) {
      // No mount namespace here: bubblewrap as nobody binds the workspace itself.
      rootStaging.mode = 'direct';
      const direct = await probe();
      if (works(direct)) console.warn(`[sandbox] as root without a mount namespace of its own (${(result.stderr || result.stdout).trim().slice(0, 200)}): the workspace's parent folders must be enterable by nobody`);
      else rootStaging.mode = 'staged';
      result = works(direct) ? direct : result;
    }
    if (works(result)) {
      return { available: true, bwrapVersion, runsAs: runningAsRoot() ? 'nobody' : 'own-user', checkedAt };
    }
    const detail = (result.stderr || result.stdout).trim().slice(0, 400) || `exit ${result.exitCode}`;
    if (runningAsRoot() && /Permission denied/.test(detail)) {
      return {
        available: false,
        reason: `the app runs as root, so the sandbox runs as nobody, who cannot use the workspaces in ${workspacesDir} (${detail}). Run the app as a normal user, or check that the workspaces are nobody's (the app makes them so)`,
        checkedAt,
      };
    }
    return {
      available: false,
      reason: `bubblewrap is installed but cannot create a sandbox here (user namespaces may be disabled): ${detail}`,
      checkedAt,
    };
  } catch (error) {
    return { available: false, reason: `the sandbox failed to start: ${errorText(error)}`, checkedAt };
  } finally {
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}
