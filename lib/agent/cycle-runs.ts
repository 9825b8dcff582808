// Each Subconscious cycle is one run of the execution engine (issue 19 §4): the perpetual loop is
// not one ever-growing workflow but one short run per cycle, `subconscious.cycle`, whose input is
// ids ({session, cycle}) and whose journal holds one step with the cycle's outcome as ids and
// flags — never the prompt, the histories or the messages. The live outcome (records for the
// events) stays in this process beside the run; the run is forgotten when it ends, so 10,000
// cycles leave nothing behind in either engine.
import { randomUUID } from 'node:crypto';
import type { ExecutionEngine, Workflow } from '@/lib/engine/execution-engine';
import type { CycleOutcome } from '@/lib/orchestrator/subconscious-cycle';

/** What a cycle's run journals. */
export type CycleSummary =
  | { kind: 'persisted'; cycle: number; messageIds: number[]; moodId: number; trigger: boolean }
  | { kind: 'failed'; message: string }
  | { kind: 'aborted' };

interface CycleInput {
  sessionId: string;
  cycle: number;
}

type Runner = (signal: AbortSignal) => Promise<CycleOutcome>;

export class CycleRuns {
  /** Told apart from another process's (or an earlier launch's) runs of the same cycle number. */
  private readonly launchId = randomUUID().slice(0, 8);
  private readonly runners = new Map<string, Runner>();
  private readonly outcomes = new Map<string, CycleOutcome>();
  private readonly workflow: Workflow<CycleInput, CycleSummary>;

  constructor(private readonly engine: ExecutionEngine) {
    this.workflow = engine.define('subconscious.cycle', async (context, _input: CycleInput) => {
      const runner = this.runners.get(context.runId);
      // A cycle recovered from a process that died: its session's mind runs its own next cycle.
      if (!runner) return { kind: 'aborted' };
      return context.step('cycle', async (): Promise<CycleSummary> => {
        const outcome = await runner(context.signal);
        this.outcomes.set(context.runId, outcome);
        return summarize(outcome);
      });
    });
  }

  /** Runs one cycle of a session as its own run and forgets the run when it ends. */
  async run(input: CycleInput, runner: Runner): Promise<CycleOutcome> {
    const runId = `cycle:${input.sessionId}:${input.cycle}:${this.launchId}`;
    this.runners.set(runId, runner);
    try {
      const summary = await this.engine.start(runId, this.workflow, input);
      return this.outcomes.get(runId) ?? (summary.kind === 'failed' ? { kind: 'failed', message: summary.message, errorKind: 'protocol' } : { kind: 'aborted' });
    } catch (error) {
      return { kind: 'failed', message: `The cycle's run failed: ${error instanceof Error ? error.message : String(error)}`, errorKind: 'protocol' };
    } finally {
      this.runners.delete(runId);
      this.outcomes.delete(runId);
      await this.engine.forget(runId).catch((error: unknown) => console.error(`[engine] could not forget ${runId}`, error));
    }
  }
}

function summarize(outcome: CycleOutcome): CycleSummary {
  switch (outcome.kind) {
    case 'persisted':
      return { kind: 'persisted', cycle: outcome.cycle, messageIds: outcome.messages.map((message) => message.id), moodId: outcome.moodAndCriteria.id, trigger: outcome.trigger };
    case 'failed':
      return { kind: 'failed', message: outcome.message };
    case 'aborted':
      return { kind: 'aborted' };
  }
}
