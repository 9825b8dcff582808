// The contract between agent code and whatever runs it (ARCHITECTURE §14). A workflow takes
// time, randomness and I/O only through its context — `step` for anything with an effect
// (model calls, tool calls, writes), `waitFor` for what a person or another process sends,
// `sleep` and `now` for time — so a durable engine can replay it from its journal after a crash
// and get the same decisions. Tokens stream from inside a step and are not journaled.
import { errorText } from '@/lib/errors/error-text';

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';

export interface WorkflowContext {
  readonly runId: string;
  /** Aborts when the run is cancelled: pass it to model calls and tools. */
  readonly signal: AbortSignal;
  /**
   * Runs `fn` once in this run (names are unique per run); a replay returns what it returned the
   * first time. With `retries`, a throwing `fn` is tried again after a growing pause; when the
   * last attempt throws, the step fails with a StepFailedError naming the attempts and the error.
   */
  step<T>(name: string, fn: () => Promise<T>, options?: StepOptions): Promise<T>;
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

export interface StepOptions {
  /** Attempts after the first (default 0: the first error is the step's). */
  retries?: number;
  /** The pause before the first retry (default 1 s). */
  retryDelayMs?: number;
  /** Each further pause is this many times the last (default 2). */
  backoff?: number;
}

/** A step that kept failing through its retries: the terminal error of the retry policy. */
export class StepFailedError extends Error {
  constructor(
    readonly step: string,
    readonly attempts: number,
    readonly lastError: string,
    options?: ErrorOptions,
  ) {
    super(`step "${step}" failed after ${attempts} attempts: ${lastError}`, options);
    this.name = 'StepFailedError';
  }
}

/**
 * The retry policy both engines apply inside a step (the journal keeps only the step's outcome):
 * a cancelled run stops retrying, and a cancel during a pause ends it at once.
 */
export async function runWithRetries<T>(input: {
  runId: string;
  step: string;
  fn: () => Promise<T>;
  options: StepOptions | undefined;
  signal: AbortSignal;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}): Promise<T> {
  const retries = input.options?.retries ?? 0;
  if (retries <= 0) return input.fn();
  let delay = input.options?.retryDelayMs ?? 1_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await input.fn();
    } catch (error) {
      if (input.signal.aborted) throw new RunCancelledError(input.runId);
      if (attempt > retries) throw new StepFailedError(input.step, attempt, errorText(error), { cause: error });
    }
    await input.sleep(delay, input.signal);
    if (input.signal.aborted) throw new RunCancelledError(input.runId);
    delay *= input.options?.backoff ?? 2;
  }
}

export class RunCancelledError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} was cancelled`);
    this.name = 'RunCancelledError';
  }
}

/**
 * For a run whose process is stopping: resolves once the engine's shutdown aborts the run. A run
 * must not return before that — a durable engine would record it as ended (issue 73 §1: a task
 * stopped mid-step was failed by the restart as "ended before the task did"); aborted by the
 * shutdown, it stays unfinished for the next launch or another member.
 */
export function untilShutdown(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
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
  /** Drops a finished run and its journal (a run per Subconscious cycle must not pile up); a running one is kept. */
  forget(runId: string): Promise<void>;
  /**
   * Stops every run in this process without ending it, once their code has unwound (each sees its
   * signal abort): in-memory runs are gone, a durable engine's stay pending for the next launch.
   */
  shutdown(): Promise<void>;
  /**
   * Runs left by processes found dead (by their names) continue here, from their last finished
   * step — all of them, or only those of `runs` (ids, and id prefixes); how many. Only a durable
   * engine has any: an in-memory one's runs died with their process.
   */
  adopt?(owners: readonly string[], runs?: { ids: readonly string[]; prefixes: readonly string[] }, options?: AdoptOptions): Promise<number>;
  /** A durable engine's runs moved onto this version, or ended because their workflow is gone (issue 60). */
  onCarried?(listener: (runs: readonly CarriedRun[]) => void): () => void;
  /** A durable engine's unfinished runs stamped with another version than this process's (the Cluster page). */
  runsOfOtherVersions?(): Promise<{ runId: string; name: string; version: string; executor: string }[]>;
}

/** A run moved onto this version (`gone`: its workflow is not in it — ended instead, with this reason). */
export interface CarriedRun {
  runId: string;
  name: string;
  from: string;
  to: string;
  gone?: string;
}

export interface AdoptOptions {
  /** The owners' parked runs only (a launch parks its own as `parked:<owner>`), not their live ones. */
  parked?: boolean;
  /** The versions live members run: a run of none of them is carried onto this one (null: only this version's). */
  liveVersions?: readonly string[] | null;
  /**
   * The live members: runs of any other executor (a dead one, or a parked one — any member's: the
   * runs asked for are of sessions this process holds) are taken too — a sweep that finds what no
   * member's departure will bring back.
   */
  liveMembers?: readonly string[];
}

