// Each Subconscious cycle is one run of the execution engine (issue 19 §4): the perpetual loop is
// not one ever-growing workflow but one short run per cycle, `subconscious.cycle` (short-runs.ts),
// whose input is ids ({session, cycle}) and whose journal holds the cycle's outcome as ids and
// flags — never the prompt, the histories or the messages. 10,000 cycles leave nothing behind.
import type { ExecutionEngine } from '@/lib/engine/execution-engine';
import type { CycleOutcome } from '@/lib/mind/outcomes';
import { ShortRuns } from './short-runs';

/** What a cycle's run journals. */
export type CycleSummary =
  | { kind: 'persisted'; cycle: number; messageIds: number[]; moodId: number; trigger: boolean }
  | { kind: 'failed'; message: string }
  | { kind: 'aborted' };

interface CycleInput {
  sessionId: string;
  cycle: number;
}

export class CycleRuns extends ShortRuns<CycleInput, CycleOutcome, CycleSummary> {
  constructor(engine: ExecutionEngine) {
    super(engine, {
      name: 'subconscious.cycle',
      runId: (input) => `cycle:${input.sessionId}:${input.cycle}`,
      summarize,
      // A cycle recovered from a process that died: its session's mind runs its own next cycle.
      ended: (reason) => (reason.kind === 'failed' ? { kind: 'failed', message: reason.message.replace('The run', "The cycle's run"), errorKind: 'protocol' } : { kind: 'aborted' }),
    });
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
