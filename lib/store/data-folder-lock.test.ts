// One process per data folder: a live holder is named and refused; a dead one's lock (kill -9),
// a torn lock file and our own are taken over; of two processes racing for a stale lock exactly
// one wins; release never removes another process's lock.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFolderInUseError, LOCK_FILE, lockDataFolder } from './data-folder-lock';

const folders: string[] = [];
function folder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-lock-'));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const holderFile = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as { pid: number; host: string };
const writeHolder = (dir: string, holder: object) => fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(holder));
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('lockDataFolder', () => {
  it('red-team round 4: a new data folder is 0700; an existing one others could read is tightened, and the log says so', async () => {
    const fresh = path.join(folder(), 'data');
    (await lockDataFolder(fresh)).release();
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
    const loose = folder();
    fs.chmodSync(loose, 0o755);
    const logs: string[] = [];
    const log = console.log;
    console.log = (line: string) => void logs.push(line);
    try {
      (await lockDataFolder(loose)).release();
    } finally {
      console.log = log;
    }
    expect(fs.statSync(loose).mode & 0o777).toBe(0o700);
    expect(logs.join('\n')).toMatch(/was readable by others \(mode 755\): now 0700/);
  });

  it('takes a free folder, and refuses it while a live process on this machine holds it, naming the process', async () => {
    const dir = folder();
    const lock = await lockDataFolder(dir, { port: 3000 });
    expect(holderFile(dir)).toMatchObject({ pid: process.pid, host: os.hostname(), port: 3000 });
    lock.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);

    const other = spawn('sleep', ['30']);
    try {
      writeHolder(dir, { pid: other.pid, host: os.hostname(), startedAt: '2026-11-23T10:00:00.000Z', port: 3001 });
      const refused = await lockDataFolder(dir).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DataFolderInUseError);
      expect((refused as Error).message).toContain(`pid ${other.pid}, port 3001`);
      expect(holderFile(dir).pid).toBe(other.pid); // untouched
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('a process on another machine is refused too (its liveness cannot be checked from here)', async () => {
    const dir = folder();
    writeHolder(dir, { pid: 1, host: 'elsewhere', startedAt: '2026-11-23T10:00:00.000Z' });
    await expect(lockDataFolder(dir)).rejects.toBeInstanceOf(DataFolderInUseError);
  });

  it('takes over the lock of a process that died, a torn lock file and its own', async () => {
    for (const stale of [{ pid: deadPid(), host: os.hostname(), startedAt: 'x' }, '{"pid": 12', { pid: process.pid, host: os.hostname(), startedAt: 'x' }]) {
      const dir = folder();
      fs.writeFileSync(path.join(dir, LOCK_FILE), typeof stale === 'string' ? stale : JSON.stringify(stale));
      const lock = await lockDataFolder(dir);
      expect(holderFile(dir).pid).toBe(process.pid);
      lock.release();
    }
  });

  it('release leaves another process\'s lock alone', async () => {
    const dir = folder();
    const lock = await lockDataFolder(dir);
    writeHolder(dir, { pid: 4242, host: 'elsewhere', startedAt: 'x' }); // replaced under us
    lock.release();
    expect(holderFile(dir).pid).toBe(4242);
  });

  it('of processes racing for a stale lock, exactly one takes it', async () => {
    const dir = folder();
    writeHolder(dir, { pid: deadPid(), host: os.hostname(), startedAt: 'x' });
    const script = `
      import { lockDataFolder } from ${JSON.stringify(path.resolve('lib/store/data-folder-lock.ts'))};
      try { await lockDataFolder(${JSON.stringify(dir)}); console.log('took'); await new Promise((r) => setTimeout(r, 1500)); }
      catch (error) { console.log(error.name); }`;
    const racers = Array.from({ length: 3 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] }));
    const outputs = await Promise.all(
      racers.map(
        (child) =>
          new Promise<string>((resolve) => {
            let out = '';
            child.stdout!.on('data', (chunk) => (out += chunk));
            child.on('exit', () => resolve(out.trim()));
          }),
      ),
    );
    expect(outputs.filter((output) => output === 'took')).toHaveLength(1);
    expect(outputs.filter((output) => output === 'DataFolderInUseError')).toHaveLength(2);
  }, 30_000);
});
