// One conformance suite for both execution engines (issue 19): the in-memory one and DBOS on a real
// PostgreSQL the test starts itself. N steps make N side effects; a second start of the same run id
// returns the same result and runs nothing again; a signal sent before its wait is not lost; an
// unknown or finished run refuses signals; cancel ends a wait at once and stops a run at its next
// step boundary; a failing step fails the run with its error; a step's retry policy tries again and
// ends in a terminal error; a person's approve or deny reaches the next step (the model), with the
// reason; a run started from inside another run's step is a run of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '@/lib/clock/clock';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { RunCancelledError, type ExecutionEngine, type WorkflowContext } from '@/lib/engine/execution-engine';
import { InMemoryEngine } from '@/lib/engine/in-memory-engine';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';

const effects = new Map<string, number>();
const effect = (runId: string) => effects.set(runId, (effects.get(runId) ?? 0) + 1).get(runId)!;
const gates = new Map<string, Promise<void>>();

function defineWorkflows(engine: ExecutionEngine) {
  const steps = engine.define('conformance.steps', async (context: WorkflowContext, n: number) => {
    let last = 0;
    for (let index = 0; index < n; index++) last = await context.step(`effect-${index}`, async () => effect(context.runId));
    return { last, at: context.now() > 0 };
  });
  return {
    steps,
    // A run started from inside another run's step (a task delegating to a specialist): a run of its own.
    delegating: engine.define('conformance.delegating', async (context: WorkflowContext, n: number) =>
      context.step('delegate', async () => (await engine.start(`${context.runId}-child`, steps, n)).last),
    ),
    answers: engine.define('conformance.answers', async (context: WorkflowContext, _input: null) => {
      await context.step('gate', () => gates.get(context.runId) ?? Promise.resolve());
      const first = await context.waitFor<string | null>('answer');
      const second = await context.waitFor<string | null>('answer');
      return `${first},${second}`;
    }),
    waits: engine.define('conformance.waits', async (context: WorkflowContext, _input: null) => context.waitFor<string>('never')),
    slowSteps: engine.define('conformance.slow-steps', async (context: WorkflowContext, n: number) => {
      for (let index = 0; index < n; index++) {
        await context.step(`slow-${index}`, async () => {
          effect(context.runId);
          await new Promise((resolve) => setTimeout(resolve, 30));
        });
      }
      return 'finished';
    }),
    flaky: engine.define('conformance.flaky', async (context: WorkflowContext, failures: number) => {
      const answer = await context.step(
        'call',
        async () => {
          if (effect(context.runId) <= failures) throw new Error('server busy');
          return `ok after ${effects.get(context.runId)}`;
        },
        { retries: 2, retryDelayMs: 10 },
      );
      return answer;
    }),
    approval: engine.define('conformance.approval', async (context: WorkflowContext, command: string) => {
      const card = await context.step('propose', async () => ({ tool: 'bash', command }));
      const decision = await context.waitFor<{ decision: 'approve' | 'deny'; reason?: string }>('decision');
      const result = decision.decision === 'approve' ? await context.step('run', async () => `ran ${card.command} (${effect(context.runId)})`) : `denied by the user: ${decision.reason ?? 'no reason given'}`;
      // The model's next call sees the result, or the person's reason.
      return context.step('model', async () => `the model read: ${result}`);
    }),
    failing: engine.define('conformance.failing', async (context: WorkflowContext, _input: null) => {
      await context.step('ok', async () => effect(context.runId));
      await context.step('boom', async () => {
        throw new Error('the tool broke');
      });
      return 'unreachable';
    }),
  };
}

interface EngineUnderTest {
  engine: ExecutionEngine;
  workflows: ReturnType<typeof defineWorkflows>;
  close(): Promise<void>;
}

const engines: { name: string; make(): Promise<EngineUnderTest> }[] = [
  {
    name: 'in-memory',
    async make() {
      const engine = new InMemoryEngine(realClock);
      return { engine, workflows: defineWorkflows(engine), close: async () => undefined };
    },
  },
  {
    name: 'DBOS on PostgreSQL',
    async make() {
      const database: TestPostgres = await startPostgres();
      const engine = new DbosEngine({ systemDatabaseUrl: database.urlFor('agentcsd_dbos'), appName: 'conformance' });
      const workflows = defineWorkflows(engine);
      await engine.launch();
      return {
        engine,
        workflows,
        close: async () => {
          await engine.shutdown();
          await database.stop();
        },
      };
    },
  },
];

describe.each(engines)('the $name engine', ({ name, make }) => {
  let under: EngineUnderTest;
  const id = (suffix: string) => `${name.split(' ')[0]}-${suffix}-${Math.random().toString(16).slice(2, 8)}`;
  beforeAll(async () => {
    under = await make();
  }, 60_000);
  afterAll(async () => {
    await under?.close();
  });

  it('N steps make N side effects; a second start of the same run returns the same result and runs nothing again', async () => {
    const { engine, workflows } = under;
    const runId = id('steps');
    const [first, second] = await Promise.all([engine.start(runId, workflows.steps, 5), engine.start(runId, workflows.steps, 5)]);
    expect(first).toEqual({ last: 5, at: true });
    expect(second).toEqual(first);
    expect(await engine.start(runId, workflows.steps, 5)).toEqual(first);
    expect(effects.get(runId)).toBe(5);
    expect(await engine.status(runId)).toBe('completed');
    expect(await engine.status(id('ghost'))).toBe('unknown');
  });

  it('a run started from inside another run’s step runs on its own, once, and its result comes back to the step', async () => {
    const { engine, workflows } = under;
    const runId = id('delegating');
    expect(await engine.start(runId, workflows.delegating, 3)).toBe(3);
    expect(effects.get(`${runId}-child`)).toBe(3);
    expect([await engine.status(runId), await engine.status(`${runId}-child`)]).toEqual(['completed', 'completed']);
  });

  it('a signal sent before its wait is not lost; unknown and finished runs refuse signals', async () => {
    const { engine, workflows } = under;
    const runId = id('answers');
    let release!: () => void;
    gates.set(runId, new Promise<void>((resolve) => (release = resolve)));
    const done = engine.start(runId, workflows.answers, null);
    for (let tries = 0; (await engine.status(runId)) !== 'running' && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await engine.signal(runId, 'answer', 'early')).toBe(true); // nobody waits yet
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await engine.signal(runId, 'answer', null)).toBe(true);
    expect(await done).toBe('early,null');
    expect(await engine.signal(runId, 'answer', 'after')).toBe(false);
    expect(await engine.signal(id('ghost'), 'answer', 'x')).toBe(false);
  });

  it('cancel ends a wait at once and stops a run at its next step boundary', async () => {
    const { engine, workflows } = under;
    const waiting = id('waits');
    const waited = engine.start(waiting, workflows.waits, null);
    for (let tries = 0; (await engine.status(waiting)) !== 'running' && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await engine.cancel(waiting)).toBe(true);
    await expect(waited).rejects.toBeInstanceOf(RunCancelledError);
    expect(await engine.status(waiting)).toBe('cancelled');
    expect(await engine.cancel(waiting)).toBe(false);

    const stepping = id('slow');
    const ran = engine.start(stepping, workflows.slowSteps, 50);
    for (let tries = 0; (effects.get(stepping) ?? 0) < 3 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await engine.cancel(stepping)).toBe(true);
    await expect(ran).rejects.toBeInstanceOf(RunCancelledError);
    const after = effects.get(stepping)!;
    expect(after).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(effects.get(stepping)).toBe(after); // nothing ran after the boundary
  });

  it("a failing step fails the run with the step's error", async () => {
    const { engine, workflows } = under;
    const runId = id('failing');
    await expect(engine.start(runId, workflows.failing, null)).rejects.toThrow('the tool broke');
    expect(await engine.status(runId)).toBe('failed');
    expect(effects.get(runId)).toBe(1);
  });

  it('the retry policy tries a failing step again, then ends in a terminal error', async () => {
    const { engine, workflows } = under;
    const recovers = id('flaky');
    expect(await engine.start(recovers, workflows.flaky, 2)).toBe('ok after 3');
    expect(effects.get(recovers)).toBe(3);
    const hopeless = id('hopeless');
    await expect(engine.start(hopeless, workflows.flaky, 99)).rejects.toThrow('step "call" failed after 3 attempts: server busy');
    expect(effects.get(hopeless)).toBe(3);
    expect(await engine.status(hopeless)).toBe('failed');
  });

  it('approve runs the proposed call once; deny does not run it and its reason reaches the model', async () => {
    const { engine, workflows } = under;
    const approved = id('approve');
    const ran = engine.start(approved, workflows.approval, 'ls');
    for (let tries = 0; (await engine.status(approved)) !== 'running' && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await engine.signal(approved, 'decision', { decision: 'approve' })).toBe(true);
    expect(await ran).toBe('the model read: ran ls (1)');
    expect(effects.get(approved)).toBe(1);

    const denied = id('deny');
    const refused = engine.start(denied, workflows.approval, 'rm -rf /');
    for (let tries = 0; (await engine.status(denied)) !== 'running' && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await engine.signal(denied, 'decision', { decision: 'deny', reason: 'not on my disk' })).toBe(true);
    expect(await refused).toBe('the model read: denied by the user: not on my disk');
    expect(effects.get(denied)).toBeUndefined();
  });
});
