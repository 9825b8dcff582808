// The default engine: runs in this process, journals step results in memory (a step named twice
// in one run runs once), delivers signals to waits and buffers the early ones. Durability comes
// from the agent code's own records in SQLite (a task continues from its stored steps); the
// durable engine (issue 19) journals the same calls in PostgreSQL.
import type { Clock } from '@/lib/clock/clock';
import { RunCancelledError, runWithRetries, type ExecutionEngine, type RunStatus, type StepOptions, type Workflow, type WorkflowContext } from './execution-engine';

interface Run {
  status: RunStatus;
  done: Promise<unknown>;
  controller: AbortController;
  journal: Map<string, Promise<unknown>>;
  /** Signals sent before anyone waited for them, per name, in order. */
  inbox: Map<string, unknown[]>;
  waiters: Map<string, ((payload: unknown) => void)[]>;
}

/** Finished runs kept for `status` and idempotent `start` (a perpetual loop must not grow the map). */
const KEPT_FINISHED_RUNS = 1_000;

export class InMemoryEngine implements ExecutionEngine {
  private readonly runs = new Map<string, Run>();
  /** Finished run ids, oldest first: beyond the bound the oldest is forgotten (its status reads `unknown`). */
  private readonly finished = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly keptFinishedRuns = KEPT_FINISHED_RUNS,
  ) {}

  /** Runs the engine holds in memory (for the boundedness test and the benchmark). */
  get size(): number {
    return this.runs.size;
  }

  define<Input, Output>(_name: string, workflow: Workflow<Input, Output>): Workflow<Input, Output> {
    return workflow;
  }

  start<Input, Output>(runId: string, workflow: Workflow<Input, Output>, input: Input): Promise<Output> {
    const existing = this.runs.get(runId);
    // Running or finished: the same run. A cancelled or failed run starts afresh (a task paused
    // with its session runs again under its id when the session resumes).
    if (existing?.status === 'running' || existing?.status === 'completed') return existing.done as Promise<Output>;
    const run: Run = { status: 'running', done: Promise.resolve(), controller: new AbortController(), journal: new Map(), inbox: new Map(), waiters: new Map() };
    this.runs.set(runId, run);
    const context = this.contextFor(runId, run);
    run.done = (async () => {
      try {
        const output = await workflow(context, input);
        run.status = run.controller.signal.aborted ? 'cancelled' : 'completed';
        return output;
      } catch (error) {
        run.status = run.controller.signal.aborted || error instanceof RunCancelledError ? 'cancelled' : 'failed';
        throw error;
      } finally {
        this.finish(runId, run);
      }
    })();
    return run.done as Promise<Output>;
  }

  private finish(runId: string, run: Run): void {
    // The journal and the waits go with the run's end: only its status and result stay.
    run.journal.clear();
    run.inbox.clear();
    run.waiters.clear();
    this.finished.delete(runId); // a run id started again counts from its latest end
    this.finished.add(runId);
    for (const oldest of this.finished) {
      if (this.finished.size <= this.keptFinishedRuns) break;
      this.finished.delete(oldest);
      if (this.runs.get(oldest)?.status !== 'running') this.runs.delete(oldest);
    }
  }

  async signal(runId: string, name: string, payload: unknown): Promise<boolean> {
    const run = this.runs.get(runId);
    if (!run || run.status !== 'running') return false;
    const waiting = run.waiters.get(name);
    const waiter = waiting?.shift();
    if (waiter) waiter(payload);
    else run.inbox.set(name, [...(run.inbox.get(name) ?? []), payload]);
    return true;
  }

  async cancel(runId: string): Promise<boolean> {
    const run = this.runs.get(runId);
    if (!run || run.status !== 'running') return false;
    run.controller.abort(new RunCancelledError(runId));
    return true;
  }

  async forget(runId: string): Promise<void> {
    if (this.runs.get(runId)?.status === 'running') return;
    this.runs.delete(runId);
    this.finished.delete(runId);
  }

  async shutdown(): Promise<void> {
    const running = [...this.runs.entries()].filter(([, run]) => run.status === 'running');
    for (const [runId, run] of running) run.controller.abort(new RunCancelledError(runId));
    await Promise.allSettled(running.map(([, run]) => run.done));
  }

  async status(runId: string): Promise<RunStatus> {
    return this.runs.get(runId)?.status ?? 'unknown';
  }

  private contextFor(runId: string, run: Run): WorkflowContext {
    const clock = this.clock;
    const signal = run.controller.signal;
    return {
      runId,
      signal,
      step<T>(name: string, fn: () => Promise<T>, options?: StepOptions): Promise<T> {
        const journaled = run.journal.get(name);
        if (journaled) return journaled as Promise<T>;
        // A cancelled run stops at its next step boundary: the step does not start.
        if (signal.aborted) return Promise.reject(new RunCancelledError(runId));
        const result = runWithRetries({ runId, step: name, fn, options, signal, sleep: (ms, abort) => clock.sleep(ms, abort) });
        run.journal.set(name, result);
        return result;
      },
      waitFor<T>(name: string): Promise<T> {
        const early = run.inbox.get(name);
        if (early?.length) return Promise.resolve(early.shift() as T);
        return new Promise<T>((resolve, reject) => {
          if (signal.aborted) return reject(new RunCancelledError(runId));
          const onAbort = () => reject(new RunCancelledError(runId));
          signal.addEventListener('abort', onAbort, { once: true });
          run.waiters.set(name, [
            ...(run.waiters.get(name) ?? []),
            (payload) => {
              signal.removeEventListener('abort', onAbort);
              resolve(payload as T);
            },
          ]);
        });
      },
      sleep: (ms: number) => clock.sleep(ms, signal),
      now: () => clock.now(),
    };
  }
}
