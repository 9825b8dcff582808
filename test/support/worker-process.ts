// A real `server.ts --worker` process on the test's PostgreSQL and folders (issue 19): another
// member of the cluster, killed with SIGKILL by the tests that need it to die.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect, vi } from 'vitest';
import { freePort } from './postgres';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
}

export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('server.ts'), '--worker'], {
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  await vi.waitFor(() => expect(output).toContain('worker ready'), { timeout: 30_000, interval: 100 });
  return {
    child,
    output: () => output,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
