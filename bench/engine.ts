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
  const dbos = new DbosEngine({ systemDatabaseUrl: database.url.replace(/\/postgres$/, '/agentcsd_bench'), appName: 'bench' });
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
  const { spawn } = await import('node:child_process');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const database = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-recovery-'));
  const run = (env: Record<string, string>) =>
    spawn(process.execPath, ['--import', 'tsx', path.resolve('test/engine/dbos-worker.ts')], {
      env: { ...process.env, DATABASE_URL: database.url.replace(/\/postgres$/, '/agentcsd_recovery'), STEPS: '10', ...env },
      stdio: 'ignore',
    });
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
