// Work of the mind that runs as one short run of the execution engine each (issue 19): a
// Subconscious cycle (cycle-runs.ts) or an Internal Dialog turn (turn-runs.ts). The run's input is
// ids; its journal is one step holding the outcome as ids and flags — never prompts or texts; the
// live outcome (records for the events) stays in this process beside the run; the run is forgotten
// when it ends, so a perpetual loop leaves nothing behind in either engine. A run recovered from a
// process that died has no runner here: it ends at once (its session's mind carries on from the
// store: the next cycle, or the open turn it resumes).
import { randomUUID } from 'node:crypto';
import type { ExecutionEngine, Workflow } from '@/lib/engine/execution-engine';
import { errorText } from '@/lib/errors/error-text';

type Runner<Outcome> = (signal: AbortSignal) => Promise<Outcome>;

export interface ShortRunKind<Input, Outcome, Summary> {
  /** The workflow's durable name. */
  name: string;
  runId(input: Input): string;
  /** What the journal keeps of an outcome: ids and flags. */
  summarize(outcome: Outcome): Summary;
  /** The outcome of a run that had no runner (recovered), or whose engine failed. */
  ended(reason: { kind: 'recovered' } | { kind: 'failed'; message: string }): Outcome;
}

export class ShortRuns<Input, Outcome, Summary> {
  /** Told apart from another process's (or an earlier launch's) runs of the same work. */
  private readonly launchId = randomUUID().slice(0, 8);
  private readonly runners = new Map<string, Runner<Outcome>>();
  private readonly outcomes = new Map<string, Outcome>();
  private readonly workflow: Workflow<Input, Summary | { recovered: true }>;

  constructor(
    private readonly engine: ExecutionEngine,
    private readonly kind: ShortRunKind<Input, Outcome, Summary>,
  ) {
    this.workflow = engine.define(kind.name, async (context, _input: Input) => {
      const runner = this.runners.get(context.runId);
      if (!runner) return { recovered: true as const };
      return context.step('run', async () => {
        const outcome = await runner(context.signal);
        this.outcomes.set(context.runId, outcome);
        return kind.summarize(outcome);
      });
    });
  }

  /** Runs the work as its own run and forgets the run when it ends. */
  async run(input: Input, runner: Runner<Outcome>): Promise<Outcome> {
    const runId = `${this.kind.runId(input)}:${this.launchId}`;
    this.runners.set(runId, runner);
    try {
      await this.engine.start(runId, this.workflow, input);
      return this.outcomes.get(runId) ?? this.kind.ended({ kind: 'recovered' });
    } catch (error) {
      return this.kind.ended({ kind: 'failed', message: `The run failed: ${errorText(error)}` });
    } finally {
      this.runners.delete(runId);
      this.outcomes.delete(runId);
      await this.engine.forget(runId).catch((error: unknown) => console.error(`[engine] could not forget ${runId}`, error));
    }
  }
}
