// The contract between agent code and whatever runs it (ARCHITECTURE §14). A workflow takes
// time, randomness and I/O only through its context — `step` for anything with an effect
// (model calls, tool calls, writes), `waitFor` for what a person or another process sends,
// `sleep` and `now` for time — so a durable engine can replay it from its journal after a crash
// and get the same decisions. Tokens stream from inside a step and are not journaled.

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';

export interface WorkflowContext {
  readonly runId: string;
  /** Aborts when the run is cancelled: pass it to model calls and tools. */
  readonly signal: AbortSignal;
  /** Runs `fn` once in this run (names are unique per run); a replay returns what it returned the first time. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The payload of the next signal of this name (one sent before the wait is kept for it). */
  waitFor<T = unknown>(name: string): Promise<T>;
  /** Resolves after `ms`, or at once when the run is cancelled. */
  sleep(ms: number): Promise<void>;
  /**
   * The engine's clock (simulated in tests). Not journaled: use it for limits (a task's timeout),
   * which a replay may judge again, never for a decision that must replay the same.
   */
  now(): number;
}

export type Workflow<Input, Output> = (context: WorkflowContext, input: Input) => Promise<Output>;

export class RunCancelledError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} was cancelled`);
    this.name = 'RunCancelledError';
  }
}

export interface ExecutionEngine {
  /**
   * Names a workflow, so a durable engine finds it again after a restart (call it before the
   * engine launches; its input and output must be JSON). The in-memory engine needs no names.
   */
  define<Input, Output>(name: string, workflow: Workflow<Input, Output>): Workflow<Input, Output>;
  /** Starts the run, or returns the one already going (or finished) under this id (idempotent). */
  start<Input, Output>(runId: string, workflow: Workflow<Input, Output>, input: Input): Promise<Output>;
  /** Delivers a signal (a user message, a decision, a resume input); false when the run is not running. */
  signal(runId: string, name: string, payload: unknown): Promise<boolean>;
  /** Cancels the run: its signal aborts, its waits and sleeps end; false when it is not running. */
  cancel(runId: string): Promise<boolean>;
  status(runId: string): Promise<RunStatus>;
}
