// A real `server.ts --worker` process on the caller's PostgreSQL and folders (issue 19): another
// member of the cluster, killed with SIGKILL by the tests and benchmarks that need it to die; and
// the same for any of the app's scripts (test/support/orchestrator-process.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './postgres';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
}

/** A Node process of the app's own code (tsx, or `compiled` JavaScript as `npm start` runs it), resolved once its output says `ready`; SIGKILLed by `kill`. */
export async function startAppProcess(input: { script: string; args?: string[]; env: Record<string, string>; ready: string; timeoutMs?: number; compiled?: boolean }): Promise<WorkerProcess & { exited: Promise<void> }> {
  let output = '';
  const child = spawn(process.execPath, ['--max-semi-space-size=64', ...(input.compiled ? [] : ['--import', 'tsx']), path.resolve(input.script), ...(input.args ?? [])], {
    env: { ...process.env, NODE_ENV: 'production', ...input.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = {
    child,
    exited,
    output: () => output,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
  const deadline = Date.now() + (input.timeoutMs ?? 30_000);
  while (!output.includes(input.ready)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await started.kill();
      throw new Error(`${input.script} did not start: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return started;
}

export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  return startAppProcess({ script: 'server.ts', args: ['--worker'], env: { PORT: String(await freePort()), ...env }, ready: 'worker ready' });
}

/** `npm run start:worker`'s process: the server compiled as `npm run build` compiles it (`bundle`: its server.mjs). */
export async function startCompiledWorker(bundle: string, env: Record<string, string>): Promise<WorkerProcess> {
  return startAppProcess({ script: bundle, args: ['--worker'], env: { PORT: String(await freePort()), ...env }, ready: 'worker ready', compiled: true });
}
