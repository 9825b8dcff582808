// The hostile corpus (issue 15, §10.2): calls that try to leave the workspace or the sandbox.
// Every one must be refused or contained: no canary from outside appears in any output, no file
// outside changes, no process is left behind. Runs the real tools and the real bubblewrap.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTools } from '@/lib/tools/file-tools';
import { probeSandbox } from '@/lib/tools/sandbox';
import { bashTool, pythonTool } from '@/lib/tools/shell-tools';
import type { Tool, ToolOutcome } from '@/lib/tools/tool-types';
import { ensureWorkspace } from '@/lib/tools/workspace';

const CANARY = 'CANARY-7f3a9c-outside-the-workspace';
// A canary in the key's place: the sandbox must not leak the app's environment (not key-shaped, so
// no scanner mistakes it for a real secret).
const KEY_CANARY = 'anthropic-key-canary-d41d8cd98f00b204e980';

let dataDir: string;
let workspace: string;
let outside: string;
let homeFile: string;
let server: http.Server;
let serverPort: number;
const outsideFiles: Record<string, string> = {};

function byName(name: string): Tool {
  const tool = [...fileTools, bashTool, pythonTool].find((candidate) => candidate.definition.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool as Tool;
}

async function call(name: string, args: unknown, timeoutMs = 20_000): Promise<ToolOutcome> {
  const tool = byName(name);
  const parsed = tool.args.safeParse(args);
  if (!parsed.success) return { isError: true, content: `invalid arguments: ${parsed.error.message}` };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await tool.run(parsed.data, { sessionId: 's1', workspaceDir: workspace, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}

function snapshotOutside(): Record<string, string> {
  const snapshot: Record<string, string> = {};
  for (const file of Object.keys(outsideFiles)) snapshot[file] = fs.readFileSync(file, 'utf8');
  return snapshot;
}

/** Processes whose whole command line is `command` (wrappers that merely mention it do not count). */
function processesRunning(command: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (commandLine.trim() === command) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

beforeAll(async () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-hostile-')));
  fs.chmodSync(base, 0o755); // as a checkout's folders are: the sandbox's user must reach the workspace
  dataDir = path.join(base, 'data');
  fs.mkdirSync(dataDir);
  const status = await probeSandbox({ refresh: true, workspacesDir: path.join(dataDir, 'workspaces') });
  if (!status.available) throw new Error(`the sandbox must work for this corpus: ${status.reason}`);
  outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  fs.mkdirSync(path.join(base, 'personas'));
  outsideFiles[path.join(dataDir, 'agentcsd.db')] = `SQLite format 3 ${CANARY} db`;
  outsideFiles[path.join(base, 'personas', 'Ada.md')] = `# Ada ${CANARY} persona`;
  outsideFiles[path.join(outside, 'secret.txt')] = `${CANARY} secret`;
  homeFile = path.join(os.homedir(), `.agentcsd-hostile-canary-${process.pid}`);
  outsideFiles[homeFile] = `${CANARY} home`;
  for (const [file, content] of Object.entries(outsideFiles)) fs.writeFileSync(file, content);
  workspace = ensureWorkspace('s1', dataDir);
  // Traps planted in the workspace, as a previous call or the user might leave them.
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link-to-secret'));
  fs.symlinkSync(outside, path.join(workspace, 'link-to-outside'));
  fs.symlinkSync('/', path.join(workspace, 'link-to-root'));
  fs.symlinkSync(path.join(dataDir, 'agentcsd.db'), path.join(workspace, 'link-to-db'));
  fs.symlinkSync('link-to-secret', path.join(workspace, 'chain'));
  fs.linkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'hardlink-to-secret'));
  execFileSync('mkfifo', [path.join(workspace, 'fifo')]);
  fs.writeFileSync(path.join(workspace, 'fine.txt'), 'inside and fine\n');
  process.env.ANTHROPIC_API_KEY_CANARY_FOR_TEST = KEY_CANARY;
  process.env.ANTHROPIC_API_KEY ??= KEY_CANARY;
  server = http.createServer((_request, response) => response.end(CANARY));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverPort = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(homeFile, { force: true });
  delete process.env.ANTHROPIC_API_KEY_CANARY_FOR_TEST;
});

// Paths that lead outside the workspace, each tried with every file tool.
const escapingPaths = [
  '..',
  '../outside/secret.txt',
  '../../outside/secret.txt',
  '../agentcsd.db',
  'a/../../agentcsd.db',
  './../../personas/Ada.md',
  '/etc/passwd',
  '/proc/self/root/etc/passwd',
  '/proc/self/environ',
  '/workspace/../agentcsd.db',
  '/workspace/../../outside/secret.txt',
  'link-to-secret',
  'link-to-outside/secret.txt',
  'link-to-root/etc/passwd',
  'link-to-db',
  'chain',
  'hardlink-to-secret',
  'fifo',
  'file\0.txt',
  `${'../'.repeat(40)}etc/passwd`,
];

type Verdict = 'refused' | 'contained';

/**
 * The only escaping paths a tool answers without an error: grep passes over a FIFO and a hard link
 * to an outside file without reading them (it searches regular files the workspace owns). Every
 * other case is refused outright.
 */
const CONTAINED = new Set(['grep fifo', 'grep hardlink-to-secret']);

const fileCases: { tool: string; args: (target: string) => unknown }[] = [
  { tool: 'read_file', args: (target) => ({ path: target }) },
  { tool: 'write_file', args: (target) => ({ path: target, content: `overwritten by ${CANARY}` }) },
  { tool: 'edit_file', args: (target) => ({ path: target, old_string: CANARY, new_string: 'pwned' }) },
  { tool: 'list_files', args: (target) => ({ path: target, recursive: true }) },
  { tool: 'grep', args: (target) => ({ pattern: 'CANARY', path: target }) },
];

describe('file tools refuse every path that leads outside the workspace (grep passes over a FIFO and a hard link unread)', () => {
  for (const { tool, args } of fileCases) {
    for (const target of escapingPaths) {
      it(`${tool} ${JSON.stringify(target).slice(0, 60)}`, async () => {
        const before = snapshotOutside();
        const outcome = await call(tool, args(target));
        const verdict: Verdict = outcome.isError ? 'refused' : 'contained';
        // Writing "overwritten by CANARY" is our own text; anything else with it came from outside.
        const leaked = outcome.content.replace(`overwritten by ${CANARY}`, '').includes(CANARY);
        expect(leaked, outcome.content).toBe(false);
        expect(snapshotOutside()).toEqual(before);
        expect(verdict, outcome.content).toBe(CONTAINED.has(`${tool} ${target}`) ? 'contained' : 'refused');
      });
    }
  }

  it('a write through a hard link replaces the name, the outside file keeps its content', async () => {
    const outcome = await call('write_file', { path: 'hardlink-to-secret', content: 'new' });
    expect(outcome.isError).toBe(true);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(`${CANARY} secret`);
  });

  it('files inside still work: read, write, edit, list, grep', async () => {
    expect((await call('write_file', { path: 'notes/todo.md', content: 'one\ntwo\n' })).content).toMatch(/Created notes\/todo.md/);
    expect((await call('edit_file', { path: 'notes/todo.md', old_string: 'two', new_string: 'three' })).isError).toBe(false);
    expect((await call('read_file', { path: '/workspace/notes/todo.md' })).content).toContain('three');
    expect((await call('list_files', { recursive: true })).content).toContain('notes/todo.md');
    const grep = await call('grep', { pattern: 'thr+ee' });
    expect(grep.content).toContain('notes/todo.md:2:three');
    expect(grep.content).not.toContain(CANARY); // grep does not follow the workspace's symlinks
  });
});

const sandboxCases: { name: string; tool: 'bash' | 'python'; source: () => string }[] = [
  { name: 'read the database by its host path', tool: 'bash', source: () => `cat ${path.join(dataDir, 'agentcsd.db')}` },
  { name: 'read personas by host path', tool: 'bash', source: () => `cat ${path.join(dataDir, '..', 'personas', 'Ada.md')}` },
  { name: 'read outside through ..', tool: 'bash', source: () => 'cat ../outside/secret.txt; cat /workspace/../outside/secret.txt' },
  { name: 'follow a planted symlink', tool: 'bash', source: () => 'cat link-to-secret link-to-db chain link-to-outside/secret.txt' },
  { name: 'the home folder', tool: 'bash', source: () => `cat ${homeFile}; ls -la ${os.homedir()}` },
  { name: 'proc root of pid 1', tool: 'bash', source: () => `cat /proc/1/root${path.join(outside, 'secret.txt')}` },
  { name: 'proc self root', tool: 'bash', source: () => `cat /proc/self/root${path.join(outside, 'secret.txt')}` },
  { name: 'environment of every process', tool: 'bash', source: () => 'cat /proc/*/environ | tr "\\0" "\\n"; env' },
  { name: 'api key canary in the environment', tool: 'python', source: () => 'import os\nprint(dict(os.environ))' },
  { name: 'host processes are invisible', tool: 'bash', source: () => 'ls /proc | grep -E "^[0-9]+$" | wc -l; cat /proc/*/cmdline' },
  { name: 'find the canary anywhere', tool: 'bash', source: () => `grep -rs ${CANARY} / --exclude-dir=proc --exclude-dir=workspace | head` },
  { name: 'write into the system', tool: 'bash', source: () => `echo ${CANARY} > /usr/pwned; echo x > /etc/pwned; echo x > /bin/pwned` },
  { name: 'hard link a system file into the workspace', tool: 'bash', source: () => 'ln /usr/bin/env ./env-link && echo linked' },
  { name: 'symlink out then the host reads it', tool: 'bash', source: () => `ln -sf ${path.join(outside, 'secret.txt')} planted && cat planted` },
  { name: 'curl the app port', tool: 'bash', source: () => `curl -s http://127.0.0.1:${serverPort}/ || wget -qO- http://127.0.0.1:${serverPort}/` },
  { name: 'bash /dev/tcp to the app port', tool: 'bash', source: () => `exec 3<>/dev/tcp/127.0.0.1/${serverPort} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && cat <&3` },
  {
    name: 'python socket to the app port',
    tool: 'python',
    source: () => `import socket\ns=socket.create_connection(("127.0.0.1",${serverPort}),timeout=2)\ns.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")\nprint(s.recv(4096))`,
  },
  { name: 'python DNS and the outside world', tool: 'python', source: () => 'import socket\nprint(socket.getaddrinfo("registry.npmjs.org", 443))' },
  { name: 'new user namespace', tool: 'bash', source: () => 'unshare -r id; unshare -rm sh -c "mount -t tmpfs x /usr && echo mounted"' },
  { name: 'mount', tool: 'bash', source: () => 'mount -t proc proc /mnt 2>&1; mount --bind / /workspace/root 2>&1' },
  { name: 'chroot', tool: 'bash', source: () => 'chroot / cat /etc/shadow' },
  { name: 'kill everything', tool: 'bash', source: () => 'kill -9 -1; echo survived' },
  { name: 'ptrace the parent', tool: 'python', source: () => 'import ctypes\nlibc=ctypes.CDLL(None)\nprint(libc.ptrace(16, 1, 0, 0))' },
  { name: 'sysfs and devices', tool: 'bash', source: () => 'ls /sys; ls /dev; cat /dev/sda 2>&1 | head -c 10' },
  { name: 'setuid escalation', tool: 'bash', source: () => 'id; su -c id 2>&1; sudo id 2>&1' },
];

describe('bash and python stay inside the sandbox', () => {
  for (const testCase of sandboxCases) {
    it(testCase.name, async () => {
      const before = snapshotOutside();
      const args = testCase.tool === 'bash' ? { command: testCase.source(), timeout_s: 15 } : { code: testCase.source(), timeout_s: 15 };
      const outcome = await call(testCase.tool, args);
      expect(outcome.content).not.toContain(CANARY);
      expect(outcome.content).not.toContain(KEY_CANARY);
      expect(snapshotOutside()).toEqual(before);
      expect(fs.existsSync('/usr/pwned')).toBe(false);
      // A link or file the sandbox planted is still refused by the host-side tools.
      expect((await call('read_file', { path: 'planted' })).content).not.toContain(CANARY);
    });
  }

  it('a fork bomb hits the process limit and ends; nothing is left', async () => {
    const outcome = await call('bash', { command: 'bomb() { bomb | bomb & }; bomb; sleep 4249', timeout_s: 5 });
    expect(outcome.content).toMatch(/fork|Resource temporarily unavailable|exit code|stopped/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesRunning('sleep 4249')).toEqual([]);
  }, 30_000);

  it('1 GB of output is cut and counted, not kept', async () => {
    const outcome = await call('bash', { command: 'head -c 1073741824 /dev/zero | tr "\\0" "y"', timeout_s: 60 }, 90_000);
    expect(outcome.droppedBytes).toBeGreaterThan(1_000_000_000);
    expect(outcome.content.length).toBeLessThan(1_100_000);
    expect(outcome.content).toMatch(/output cut: \d+ more bytes/);
  }, 120_000);

  it('a setsid grandchild does not outlive the call', async () => {
    const outcome = await call('bash', { command: 'setsid sleep 4242 & disown; (nohup sleep 4243 &); echo parent-done' });
    expect(outcome.content).toContain('parent-done');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesRunning('sleep 4242')).toEqual([]);
    expect(processesRunning('sleep 4243')).toEqual([]);
  });

  it('sleep past the timeout is stopped and leaves no process', async () => {
    const outcome = await call('bash', { command: 'trap "" TERM; sleep 4244', timeout_s: 1 });
    expect(outcome.timedOut).toBe(true);
    expect(outcome.content).toContain('time limit');
    expect(processesRunning('sleep 4244')).toEqual([]);
  });

  it('cancel stops a running call and leaves no process', async () => {
    const controller = new AbortController();
    const running = bashTool.run(
      { command: 'sleep 4245 & sleep 4246; wait' },
      { sessionId: 's1', workspaceDir: workspace, signal: controller.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesRunning('sleep 4246').length).toBeGreaterThan(0);
    controller.abort();
    const outcome = await running;
    expect(outcome.cancelled).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesRunning('sleep 4245')).toEqual([]);
    expect(processesRunning('sleep 4246')).toEqual([]);
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)('the app killed with %s leaves no sandboxed process', async (signal) => {
    const marker = signal === 'SIGTERM' ? '4247' : '4248';
    const script = `
      import { runSandboxed } from ${JSON.stringify(path.resolve('lib/tools/sandbox.ts'))};
      console.log('started');
      await runSandboxed({ workspaceDir: ${JSON.stringify(workspace)}, argv: ['bash', '-c', '(setsid sleep ${marker} &); sleep ${marker}'],
        timeoutMs: 60000, outputCapBytes: 1000, signal: new AbortController().signal });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
    for (let waited = 0; processesRunning(`sleep ${marker}`).length < 2 && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(processesRunning(`sleep ${marker}`).length).toBe(2);
    child.kill(signal);
    await new Promise((resolve) => child.once('exit', resolve));
    for (let waited = 0; processesRunning(`sleep ${marker}`).length > 0 && waited < 3_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
  }, 30_000);
});

describe('the corpus is big enough to mean something', () => {
  it('holds at least 100 hostile calls', () => {
    expect(fileCases.length * escapingPaths.length + sandboxCases.length + 6).toBeGreaterThanOrEqual(100);
  });
});
