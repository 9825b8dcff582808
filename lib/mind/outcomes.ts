// How a Subconscious cycle and an Internal Dialog turn end: what the orchestrator's loops and the
// engine runs that carry them (lib/agent/cycle-runs.ts, turn-runs.ts, lib/tasks) agree on.
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import type { MessageRecord, MoodAndCriteriaRecord } from '@/lib/store/messages-repository';
import type { TurnOutcome } from './events';

export type CycleOutcome =
  | {
      kind: 'persisted';
      cycle: number;
      sLoud: string;
      sQuiet: string;
      trigger: boolean;
      /** The words of a rest it chose, or ''. */
      rest: string;
      wellFormed: boolean;
      messages: MessageRecord[];
      moodAndCriteria: MoodAndCriteriaRecord;
      previousMood: string | null;
    }
  | { kind: 'failed'; message: string; errorKind: BackendErrorKind; retryAfterMs?: number }
  | { kind: 'aborted' };

export interface TurnResult {
  outcome: TurnOutcome;
  loud: string;
  quiet: string;
  messages: MessageRecord[];
  error?: { message: string; kind: BackendErrorKind };
  /** A task's budget refused a model call: why. */
  budgetStop?: string;
}
