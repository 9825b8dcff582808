// A worker process for the durable-engine crash tests: launches a DbosEngine on the database it
// is given (DBOS recovers the runs a killed worker left pending), starts (or rejoins) one run of
// N steps, and writes its result. Each step appends "start i" and "done i" to a file — the side
// effects the test counts; the step HOLD_AT waits there (the test kills the worker) unless the
// file says it was already started once; the step in PAUSE takes that long every time.
import fs from 'node:fs';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import type { WorkflowContext } from '@/lib/engine/execution-engine';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const [DATABASE_URL, RUN_ID, STEPS, EFFECTS, RESULT] = ['DATABASE_URL', 'RUN_ID', 'STEPS', 'EFFECTS', 'RESULT'].map(env) as [string, string, string, string, string];
const HOLD_AT = process.env.HOLD_AT;
/** A step that always takes this long (the test kills the database meanwhile): "index:ms". */
const [pauseAt, pauseMs] = (process.env.PAUSE ?? '-1:0').split(':').map(Number) as [number, number];
const holdAt = HOLD_AT ? Number(HOLD_AT) : -1;
const log = (line: string) => fs.appendFileSync(EFFECTS, `${line}\n`);

const engine = new DbosEngine({ systemDatabaseUrl: DATABASE_URL, appName: 'crash-test' });
const workflow = engine.define('crash.steps', async (context: WorkflowContext, steps: number) => {
  const values: number[] = [];
  for (let index = 0; index < steps; index++) {
    values.push(
      await context.step(`step-${index}`, async () => {
        const startedBefore = fs.existsSync(EFFECTS) && fs.readFileSync(EFFECTS, 'utf8').split('\n').includes(`start ${index}`);
        log(`start ${index}`);
        if (index === holdAt && !startedBefore) await new Promise((resolve) => setTimeout(resolve, 60_000));
        if (index === pauseAt) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        log(`done ${index}`);
        return index * index;
      }),
    );
  }
  return values.reduce((sum, value) => sum + value, 0);
});

await engine.launch();
log(`launched ${process.pid}`);
const result = await engine.start(RUN_ID, workflow, Number(STEPS));
fs.writeFileSync(RESULT, JSON.stringify({ result, pid: process.pid }));
await engine.shutdown();
process.exit(0);
