// A real `server.ts --worker` process on the caller's PostgreSQL and folders (issue 19): another
// member of the cluster, killed with SIGKILL by the tests and benchmarks that need it to die.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './postgres';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
}

export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', path.resolve('server.ts'), '--worker'], {
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const worker: WorkerProcess = {
    child,
    output: () => output,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
  const deadline = Date.now() + 30_000;
  while (!output.includes('worker ready')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await worker.kill();
      throw new Error(`the worker did not start: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return worker;
}
