// One kill round of the durable engine (issue 19, requirement 2), shared by the crash test (3
// rounds) and `npm run bench:reliability` (20): a worker process (test/engine/dbos-worker.ts) runs
// N steps and is SIGKILLed in the middle of step k; a replacement worker on the same database
// recovers the run. The round reports what the invariants need: how often each step started and
// finished, the result against an uninterrupted run's, and the replacement's spawn → result time.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface KillRound {
  k: number;
  result: number | null;
  expected: number;
  starts: number[];
  dones: number[];
  recoverMs: number;
  /** What broke an invariant (empty when the round is clean). */
  failures: string[];
}

/** The effect lines a worker wrote (test/engine/dbos-worker.ts). */
export const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
export const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

export function spawnDbosWorker(input: { databaseUrl: string; steps: number; env: Record<string, string> }): { child: ChildProcess; stderr(): string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/engine/dbos-worker.ts')], {
    env: { ...process.env, DATABASE_URL: input.databaseUrl, STEPS: String(input.steps), ...input.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + String(chunk)).slice(-6000)));
  return { child, stderr: () => stderr };
}

export async function dbosKillRound(input: { databaseUrl: string; dir: string; runId: string; steps: number; k: number; timeoutMs?: number }): Promise<KillRound> {
  const effects = path.join(input.dir, `${input.runId}.log`);
  const resultFile = path.join(input.dir, `${input.runId}.json`);
  const env = { RUN_ID: input.runId, EFFECTS: effects, RESULT: resultFile, HOLD_AT: String(input.k) };
  const deadline = Date.now() + (input.timeoutMs ?? 60_000);
  const failures: string[] = [];
  const first = spawnDbosWorker({ databaseUrl: input.databaseUrl, steps: input.steps, env });
  while (!lines(effects).includes(`start ${input.k}`)) {
    if (Date.now() > deadline || first.child.exitCode !== null) throw new Error(`step ${input.k} never started: ${first.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  first.child.kill('SIGKILL');
  await exited(first.child);
  if (fs.existsSync(resultFile)) failures.push('a result was written before the kill');

  const started = performance.now();
  const second = spawnDbosWorker({ databaseUrl: input.databaseUrl, steps: input.steps, env });
  const timer = setTimeout(() => second.child.kill('SIGKILL'), Math.max(1, deadline - Date.now()));
  const code = await exited(second.child);
  clearTimeout(timer);
  const recoverMs = performance.now() - started;
  if (code !== 0) failures.push(`the replacement worker exited with ${code}: ${second.stderr().slice(-500)}`);

  const written = lines(effects);
  const starts = Array.from({ length: input.steps }, (_, index) => written.filter((line) => line === `start ${index}`).length);
  const dones = Array.from({ length: input.steps }, (_, index) => written.filter((line) => line === `done ${index}`).length);
  const expected = Array.from({ length: input.steps }, (_, index) => index * index).reduce((sum, value) => sum + value, 0);
  const result = fs.existsSync(resultFile) ? (JSON.parse(fs.readFileSync(resultFile, 'utf8')) as { result: number }).result : null;
  if (result !== expected) failures.push(`result ${result}, expected ${expected}`);
  for (let index = 0; index < input.steps; index++) {
    if (dones[index] !== 1) failures.push(`step ${index} finished ${dones[index]} times`);
    const allowed = index === input.k ? 2 : 1;
    if (starts[index] !== allowed) failures.push(`step ${index} started ${starts[index]} times (expected ${allowed})`);
  }
  return { k: input.k, result, expected, starts, dones, recoverMs, failures };
}
