// Execution engines, measured (issue 19): the overhead of one workflow step — a step that does
// nothing — on the in-memory engine and on DBOS over a PostgreSQL started for the run (loopback,
// fsync off as in the tests: the figure is the engine's and the journal round trips', not the
// disk's). Several runs of N steps each; the median per-step time.
import { realClock } from '@/lib/clock/clock';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import type { ExecutionEngine, WorkflowContext } from '@/lib/engine/execution-engine';
import { InMemoryEngine } from '@/lib/engine/in-memory-engine';
import { startPostgres } from '@/test/support/postgres';
import { formatMs, median } from './stats';

export interface StepOverhead {
  engine: string;
  steps: number;
  perStepMs: number[];
}

/** N steps that do nothing (defined before the engine launches). */
function defineSteps(engine: ExecutionEngine, name: string) {
  return engine.define(`bench.${name}.steps`, async (context: WorkflowContext, steps: number) => {
    for (let index = 0; index < steps; index++) await context.step(`s${index}`, async () => index);
    return steps;
  });
}

async function timeRuns(engine: ExecutionEngine, workflow: ReturnType<typeof defineSteps>, options: { steps: number; runs: number }): Promise<number[]> {
  const samples: number[] = [];
  await engine.start(`warm-${Math.random()}`, workflow, Math.min(20, options.steps));
  for (let run = 0; run < options.runs; run++) {
    const started = performance.now();
    await engine.start(`bench-${run}-${Math.random()}`, workflow, options.steps);
    samples.push((performance.now() - started) / options.steps);
  }
  return samples;
}

export async function benchStepOverhead(options: { steps: number; runs: number }): Promise<StepOverhead[]> {
  const memory = new InMemoryEngine(realClock);
  const inMemory = await timeRuns(memory, defineSteps(memory, 'memory'), options);
  const database = await startPostgres();
  const dbos = new DbosEngine({ systemDatabaseUrl: database.urlFor('agentcsd_bench'), appName: 'bench' });
  try {
    const workflow = defineSteps(dbos, 'dbos');
    await dbos.launch();
    const durable = await timeRuns(dbos, workflow, options);
    return [
      { engine: 'in-memory', steps: options.steps, perStepMs: inMemory },
      { engine: 'DBOS (PostgreSQL 15, loopback)', steps: options.steps, perStepMs: durable },
    ];
  } finally {
    await dbos.shutdown();
    await database.stop();
  }
}

export function engineTable(results: StepOverhead[]): string {
  return ['| engine | steps per run | runs | per-step median |', '|---|---|---|---|', ...results.map((result) => {
      const perStep = median(result.perStepMs);
      return `| ${result.engine} | ${result.steps} | ${result.perStepMs.length} | ${perStep < 0.1 ? `${(perStep * 1000).toFixed(1)} µs` : `${formatMs(perStep)} ms`} |`;
    })].join('\n');
}

export interface Recovery {
  /** Spawn of a replacement worker → the killed run's result, ms. */
  recoverMs: number[];
  /** Spawn of a worker → the result of a fresh run of the same size (process start and launch included). */
  freshMs: number[];
}

/** A worker killed with SIGKILL mid-run and a replacement that finishes it, against a fresh run. */
export async function benchRecovery(options: { rounds: number }): Promise<Recovery> {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { spawnDbosWorker } = await import('@/test/support/dbos-kill-round');
  const database = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-recovery-'));
  const run = (env: Record<string, string>) => spawnDbosWorker({ databaseUrl: database.urlFor('agentcsd_recovery'), steps: 10, env }).child;
  const waitFor = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  const recoverMs: number[] = [];
  const freshMs: number[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const files = (name: string) => ({ EFFECTS: path.join(dir, `${name}.log`), RESULT: path.join(dir, `${name}.json`) });
      const killed = files(`killed-${round}`);
      const first = run({ RUN_ID: `killed-${round}`, HOLD_AT: '5', ...killed });
      await waitFor(() => fs.existsSync(killed.EFFECTS) && fs.readFileSync(killed.EFFECTS, 'utf8').includes('start 5'));
      const gone = new Promise((resolve) => first.once('exit', resolve));
      first.kill('SIGKILL');
      await gone;
      let started = performance.now();
      run({ RUN_ID: `killed-${round}`, HOLD_AT: '5', ...killed });
      await waitFor(() => fs.existsSync(killed.RESULT));
      recoverMs.push(performance.now() - started);

      const fresh = files(`fresh-${round}`);
      started = performance.now();
      run({ RUN_ID: `fresh-${round}`, ...fresh });
      await waitFor(() => fs.existsSync(fresh.RESULT));
      freshMs.push(performance.now() - started);
    }
  } finally {
    await database.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { recoverMs, freshMs };
}

export function recoveryTable(recovery: Recovery): string {
  return [
    '| worker (10-step run, killed during step 5) | rounds | spawn → result, median ms |',
    '|---|---|---|',
    `| replacement worker finishing the killed run | ${recovery.recoverMs.length} | ${formatMs(median(recovery.recoverMs))} |`,
    `| a worker running a fresh run (process start + launch) | ${recovery.freshMs.length} | ${formatMs(median(recovery.freshMs))} |`,
  ].join('\n');
}

export interface Throughput {
  workers: number;
  runs: number;
  /** First enqueue → last result, ms (one sample per repetition). */
  wallMs: number[];
  /** Runs each worker process took, in the last repetition. */
  perWorker: number[];
}

/**
 * N CPU-bound runs (steps of a busy loop) put on DBOS's shared queue of one PostgreSQL, taken by 1
 * and then 2 worker processes (bench/engine-pool-worker.ts, each at most 2 runs at a time), side
 * by side in one run of the benchmark.
 */
export async function benchThroughput(options: { runs: number; steps: number; stepMs: number; repetitions: number }): Promise<Throughput[]> {
  const { spawn } = await import('node:child_process');
  const path = await import('node:path');
  const { DBOS, DBOSClient } = await import('@dbos-inc/dbos-sdk');
  const database = await startPostgres();
  const results: Throughput[] = [];
  try {
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      for (const workers of [1, 2]) {
        const url = database.urlFor(`agentcsd_pool_${workers}_${repetition}`);
        // DBOS's schema first, by one process: workers launching together on a fresh database deadlock in its migration.
        await DBOS.migrate(url);
        const children = Array.from({ length: workers }, () =>
          spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/engine-pool-worker.ts')], { env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] }),
        );
        await Promise.all(children.map((child) => new Promise<void>((resolve, reject) => {
          let out = '';
          child.stdout!.on('data', (chunk) => {
            out += chunk;
            if (out.includes('ready')) resolve();
          });
          child.once('exit', (code) => reject(new Error(`pool worker exited with ${code}`)));
        })));
        const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: 'bench-pool' });
        try {
          const started = performance.now();
          const handles = [];
          for (let index = 0; index < options.runs; index++) {
            handles.push(await client.enqueue<(input: { steps: number; stepMs: number }) => Promise<{ pid: number }>>({ queueName: 'bench.work', workflowName: 'bench.cpu', workflowID: `cpu-${workers}-${repetition}-${index}` }, { steps: options.steps, stepMs: options.stepMs }));
          }
          const outputs = await Promise.all(handles.map((handle) => handle.getResult()));
          const wallMs = performance.now() - started;
          const byPid = new Map<number, number>();
          for (const output of outputs) byPid.set(output.pid, (byPid.get(output.pid) ?? 0) + 1);
          const entry = results.find((result) => result.workers === workers) ?? { workers, runs: options.runs, wallMs: [], perWorker: [] };
          if (!results.includes(entry)) results.push(entry);
          entry.wallMs.push(wallMs);
          entry.perWorker = children.map((child) => byPid.get(child.pid!) ?? 0);
        } finally {
          await client.destroy();
          await Promise.all(children.map((child) => new Promise((resolve) => {
            child.once('exit', resolve);
            child.kill('SIGTERM');
          })));
        }
      }
    }
  } finally {
    await database.stop();
  }
  return results;
}

export function throughputTable(results: Throughput[], options: { steps: number; stepMs: number }): string {
  const one = median(results.find((result) => result.workers === 1)!.wallMs);
  return [
    `| worker processes | runs (${options.steps} steps × ${options.stepMs} ms CPU each) | repetitions | wall time, median | runs per second | vs 1 worker | runs taken per worker (last) |`,
    '|---|---|---|---|---|---|---|',
    ...results.map((result) => {
      const wall = median(result.wallMs);
      return `| ${result.workers} | ${result.runs} | ${result.wallMs.length} | ${formatMs(wall)} ms | ${((result.runs * 1000) / wall).toFixed(2)} | ${(one / wall).toFixed(2)}× | ${result.perWorker.join(' / ')} |`;
    }),
  ].join('\n');
}
