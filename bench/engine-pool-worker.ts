// A worker process for the throughput benchmark (issue 19): a DbosEngine taking runs from the
// shared work queue of the database it is given; each run is CPU-bound fake steps (a busy loop of
// STEP_MS per step), so the figure is how the work spreads over processes. Prints "ready" once it
// takes work; SIGTERM stops it.
import { DbosEngine } from '@/lib/engine/dbos-engine';
import type { WorkflowContext } from '@/lib/engine/execution-engine';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');

const engine = new DbosEngine({ systemDatabaseUrl: url, appName: 'bench-pool', executorId: `pool-${process.pid}`, workQueue: { name: 'bench.work', workerConcurrency: 2, pollingMs: 50 } });
engine.define('bench.cpu', async (context: WorkflowContext, input: { steps: number; stepMs: number }) => {
  let spins = 0;
  for (let index = 0; index < input.steps; index++) {
    spins += await context.step(`cpu-${index}`, async () => {
      const until = performance.now() + input.stepMs;
      let count = 0;
      while (performance.now() < until) count++;
      return count > 0 ? 1 : 0;
    });
  }
  return { pid: process.pid, spins };
});
await engine.launch();
console.log('ready');
process.on('SIGTERM', () => {
  void engine.shutdown().finally(() => process.exit(0));
});
