// The perpetual Subconscious does not grow a journal (issue 19 §4): each cycle is one short run of
// the engine whose input and journaled step are ids and flags, and the run is forgotten when it
// ends. 10,000 simulated cycles on the in-memory engine and a few hundred on DBOS leave nothing;
// conversation turns run the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { CycleRuns } from '@/lib/agent/cycle-runs';
import { TurnRuns } from '@/lib/agent/turn-runs';
import type { TurnResult } from '@/lib/mind/outcomes';
import { realClock } from '@/lib/clock/clock';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import type { ExecutionEngine, RunStatus, Workflow, WorkflowContext } from '@/lib/engine/execution-engine';
import { InMemoryEngine } from '@/lib/engine/in-memory-engine';
import type { CycleOutcome } from '@/lib/mind/outcomes';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';

const SECRET = 'the persona core and every message stay out of the journal';

function persisted(cycle: number): CycleOutcome {
  const createdAt = new Date(0);
  return {
    kind: 'persisted',
    cycle,
    sLoud: SECRET,
    sQuiet: SECRET,
    rest: '',
    trigger: cycle % 7 === 0,
    wellFormed: true,
    messages: [{ id: cycle * 2, sessionId: 's', layer: 'subconscious', tag: 'S_loud', content: SECRET, createdAt, cycleNumber: cycle, turnId: null, spontaneous: false, interrupted: false } as never],
    moodAndCriteria: { id: cycle, sessionId: 's', mood: SECRET, criteria: SECRET, createdAt, cycleNumber: cycle } as never,
    previousMood: null,
  };
}

/** Records what the engine is given and what its steps journal (a decorator over a real engine). */
class RecordingEngine implements ExecutionEngine {
  readonly inputs: unknown[] = [];
  readonly journaled: unknown[] = [];
  constructor(private readonly inner: InMemoryEngine) {}
  define<Input, Output>(name: string, workflow: Workflow<Input, Output>) {
    return this.inner.define(name, workflow);
  }
  start<Input, Output>(runId: string, workflow: Workflow<Input, Output>, input: Input): Promise<Output> {
    this.inputs.push(input);
    const recording = (context: WorkflowContext, value: Input) =>
      workflow({ ...context, step: async (name, fn, options) => { const result = await context.step(name, fn, options); this.journaled.push(result); return result; } }, value);
    return this.inner.start(runId, recording, input);
  }
  signal = (runId: string, name: string, payload: unknown) => this.inner.signal(runId, name, payload);
  cancel = (runId: string) => this.inner.cancel(runId);
  status = (runId: string): Promise<RunStatus> => this.inner.status(runId);
  forget = (runId: string) => this.inner.forget(runId);
  shutdown = () => this.inner.shutdown();
}

describe('a run per Subconscious cycle', () => {
  it('in memory: 10,000 cycles leave no run behind; the journal holds ids and flags, never the texts', async () => {
    const inner = new InMemoryEngine(realClock);
    const engine = new RecordingEngine(inner);
    const cycles = new CycleRuns(engine);
    let largest = 0;
    for (let cycle = 1; cycle <= 10_000; cycle++) {
      const outcome = persisted(cycle);
      expect(await cycles.run({ sessionId: 's', cycle }, async () => outcome)).toBe(outcome); // the live records, for the events
      largest = Math.max(largest, inner.size);
    }
    expect(largest).toBe(0);
    expect(engine.inputs).toHaveLength(10_000);
    const stored = JSON.stringify([engine.inputs, engine.journaled]);
    expect(stored).not.toContain(SECRET);
    expect(engine.journaled[6]).toEqual({ kind: 'persisted', cycle: 7, messageIds: [14], moodId: 7, trigger: true });
  });

  it('a failing or throwing cycle comes back as a failed outcome; the loop goes on', async () => {
    const cycles = new CycleRuns(new InMemoryEngine(realClock));
    const failed: CycleOutcome = { kind: 'failed', message: 'overloaded', errorKind: 'overloaded', retryAfterMs: 1000 };
    expect(await cycles.run({ sessionId: 's', cycle: 1 }, async () => failed)).toBe(failed);
    expect(await cycles.run({ sessionId: 's', cycle: 1 }, async () => Promise.reject(new Error('disk full')))).toMatchObject({ kind: 'failed', message: expect.stringContaining('disk full') });
  });
});

describe('a run per conversation turn', () => {
  it('1,000 turns leave no run behind; the journal holds the stored messages\' ids and the outcome, never the texts', async () => {
    const inner = new InMemoryEngine(realClock);
    const engine = new RecordingEngine(inner);
    const turns = new TurnRuns(engine);
    for (let turn = 1; turn <= 1_000; turn++) {
      const result: TurnResult = { outcome: 'complete', loud: SECRET, quiet: SECRET, messages: [{ id: turn, content: SECRET } as never] };
      expect(await turns.run({ sessionId: 's', turnId: `t${turn}` }, async () => result)).toBe(result);
      expect(inner.size).toBe(0);
    }
    expect(JSON.stringify([engine.inputs, engine.journaled])).not.toContain(SECRET);
    expect(engine.journaled[4]).toEqual({ outcome: 'complete', messageIds: [5] });
    expect(await turns.run({ sessionId: 's', turnId: 'x' }, async () => Promise.reject(new Error('disk full')))).toMatchObject({ outcome: 'failed', error: { message: expect.stringContaining('disk full') } });
  });
});

describe('a run per Subconscious cycle on DBOS', () => {
  let database: TestPostgres;
  let engine: DbosEngine;
  let cycles: CycleRuns;
  let url: string;
  beforeAll(async () => {
    database = await startPostgres();
    url = database.urlFor('cycles');
    engine = new DbosEngine({ systemDatabaseUrl: url, appName: 'cycles' });
    cycles = new CycleRuns(engine);
    await engine.launch();
  }, 60_000);
  afterAll(async () => {
    await engine?.shutdown();
    await database?.stop();
  });

  it('300 cycles leave no workflow and no step row behind', async () => {
    for (let cycle = 1; cycle <= 300; cycle++) {
      const outcome = persisted(cycle);
      expect(await cycles.run({ sessionId: 'dbos-session', cycle }, async () => outcome)).toBe(outcome);
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const runs = await client.query("SELECT count(*)::int AS n FROM dbos.workflow_status WHERE name = 'subconscious.cycle'");
      const steps = await client.query('SELECT count(*)::int AS n FROM dbos.operation_outputs');
      expect([runs.rows[0].n, steps.rows[0].n]).toEqual([0, 0]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
