// Each conversation turn of the Internal Dialog is one run of the execution engine, `dialog.turn`
// (short-runs.ts): input {session, turn}, the journal its outcome as ids (the messages it stored)
// and flags. What makes a turn survive a crash is the store — its steps and tool calls are committed
// before they run and an open turn is resumed by its session's mind (resume-turns.ts) — so a turn's
// run recovered elsewhere ends at once. A task's step is a turn inside the task's own run instead.
import type { ExecutionEngine } from '@/lib/engine/execution-engine';
import type { TurnOutcome } from '@/lib/mind/events';
import type { TurnResult } from '@/lib/mind/outcomes';
import { ShortRuns } from './short-runs';

export interface TurnSummary {
  outcome: TurnOutcome;
  messageIds: number[];
  error?: string;
}

interface TurnInput {
  sessionId: string;
  turnId: string;
}

export class TurnRuns extends ShortRuns<TurnInput, TurnResult, TurnSummary> {
  constructor(engine: ExecutionEngine) {
    super(engine, {
      name: 'dialog.turn',
      runId: (input) => `turn:${input.sessionId}:${input.turnId}`,
      summarize: (result) => ({ outcome: result.outcome, messageIds: result.messages.map((message) => message.id), ...(result.error && { error: result.error.message }) }),
      ended: (reason) => ({
        outcome: reason.kind === 'failed' ? 'failed' : 'stopped',
        loud: '',
        quiet: '',
        messages: [],
        ...(reason.kind === 'failed' && { error: { message: reason.message.replace('The run', "The turn's run"), kind: 'protocol' as const } }),
      }),
    });
  }
}
