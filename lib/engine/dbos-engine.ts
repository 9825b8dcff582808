// The durable engine (issue 19, ARCHITECTURE §14): DBOS (`@dbos-inc/dbos-sdk`, MIT) journals each
// run and its steps in PostgreSQL, so a run whose process died is recovered — by this process on
// its next launch, or by another one on the same database — from its last finished step. A
// workflow is a DBOS workflow under the name `define` gives it; `step` is `DBOS.runStep` (steps are
// journaled in the order they run, so a run must take the same path on replay), `waitFor` is
// `DBOS.recv` on a topic per name (messages wait for the receiver: one sent early is not lost),
// `sleep` is DBOS's durable sleep. DBOS is one per process: so is this engine.
import { AsyncResource } from 'node:async_hooks';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { realClock, type Clock } from '@/lib/clock/clock';
import { RunCancelledError, runWithRetries, type AdoptOptions, type CarriedRun, type ExecutionEngine, type RunStatus, type Workflow, type WorkflowContext } from './execution-engine';
import { appVersion } from './app-version';
import { adoptRuns, carryOwnRuns, noRunsYet, runningElsewhere, runsOfOtherVersions, withClient } from './run-versions';

/** How long one `recv` waits before it is asked again (a wait has no deadline of its own). */
const RECV_SECONDS = 3600;

type Registered = (input: unknown) => Promise<unknown>;

export class DbosEngine implements ExecutionEngine {
  private readonly registered = new Map<Workflow<unknown, unknown>, Registered>();
  /** Runs executing in this process: their cancel aborts at once (DBOS's own cancel ends them at the next step). */
  private readonly controllers = new Map<string, { controller: AbortController; unwound: Promise<void> }>();
  /** Runs adopt() moved here: start() joins them (DBOS logs an error when one is started again). */
  private readonly adoptedRuns = new Set<string>();
  private readonly names = new Set<string>();
  private readonly carriedListeners = new Set<(runs: readonly CarriedRun[]) => void>();
  private launched = false;
  private stopping = false;

  constructor(
    private readonly options: {
      systemDatabaseUrl: string;
      appName?: string;
      /**
       * This process's name in DBOS: a launch recovers the runs left pending under it. Keep it
       * the same across restarts of one process (the app uses `AGENTCSD_EXECUTOR_ID`, default
       * the host name), and different for processes that run at the same time.
       */
      executorId?: string;
      /**
       * A queue every process on this database takes work from (`enqueue`): runs put there are
       * shared among the processes, each running at most `workerConcurrency` at a time.
       */
      workQueue?: { name: string; workerConcurrency: number; pollingMs?: number };
      /** `now` for the runs, and the pause between a step's retries (default the real clock). */
      clock?: Clock;
      /**
       * Several processes share the database (lib/engine/cluster.ts): a run goes where its session's
       * lease is (issue 43 §1). At launch this process's unfinished runs are parked instead of
       * recovered — DBOS's recovery puts them on a queue every process takes from — and taken back
       * (`adopt`) for the sessions the cluster gives it; it dispatches only its own queue and the
       * shared work queue.
       */
      clustered?: boolean;
      /** The version runs are stamped with (default this checkout's, lib/engine/app-version.ts — never DBOS's hash of printed code). */
      applicationVersion?: string;
    },
  ) {}

  /** Hears the runs moved onto this version (or ended: their workflow is gone) at launch and by `adopt`. */
  onCarried(listener: (runs: readonly CarriedRun[]) => void): () => void {
    this.carriedListeners.add(listener);
    return () => this.carriedListeners.delete(listener);
  }

  private carried(runs: readonly CarriedRun[]): void {
    if (runs.length === 0) return;
    for (const run of runs) console.log(`[engine] run ${run.runId} (${run.name}) of version ${run.from} ${run.gone ? `ended: ${run.gone}` : `continues on ${DBOS.applicationVersion} from its last finished step`}`);
    for (const listener of this.carriedListeners) listener(runs);
  }

  define<Input, Output>(name: string, workflow: Workflow<Input, Output>): Workflow<Input, Output> {
    if (this.launched) throw new Error(`define("${name}") after launch: DBOS must know every workflow before it starts`);
    const engine = this;
    this.names.add(name);
    const registered = DBOS.registerWorkflow(
      async (input: unknown) => {
        const runId = DBOS.workflowID!;
        const controller = new AbortController();
        let unwound!: () => void;
        engine.controllers.set(runId, { controller, unwound: new Promise<void>((resolve) => (unwound = resolve)) });
        let outcome: { value: unknown } | { error: unknown };
        try {
          outcome = { value: await workflow(engine.contextFor(runId, controller.signal), input as Input) };
        } catch (error) {
          outcome = { error };
        } finally {
          engine.controllers.delete(runId);
          unwound();
        }
        // Shutting down: the run stays pending in the database for the next launch; nothing is recorded.
        if (engine.stopping) await new Promise<never>(() => undefined);
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      },
      { name },
    );
    this.registered.set(workflow as Workflow<unknown, unknown>, registered as Registered);
    return workflow;
  }

  /** Connects to PostgreSQL (creating DBOS's system database the first time) and recovers runs left pending. */
  async launch(): Promise<void> {
    const clustered = this.options.clustered === true;
    DBOS.setConfig({
      name: this.options.appName ?? 'agentcsd',
      systemDatabaseUrl: withIdleTransactionTimeout(this.options.systemDatabaseUrl),
      logLevel: 'warn',
      ...(this.options.executorId && { executorID: this.options.executorId }),
      applicationVersion: this.version(),
      // Another process's adoption queue is its own: dispatching it here would run a run away from its session.
      ...(clustered && { listenQueues: [this.adoptionQueue(), ...(this.options.workQueue ? [this.options.workQueue.name] : [])] }),
    } as Parameters<typeof DBOS.setConfig>[0]);
    this.stopping = false;
    if (clustered) await this.park();
    // Alone, this executor's runs of an earlier version (its last start ran other code) continue on this one.
    const carried = clustered ? [] : await carryOwnRuns(this.options.systemDatabaseUrl, { executor: this.executorId(), version: this.version(), names: [...this.names] });
    await DBOS.launch();
    const queue = this.options.workQueue;
    if (queue) await DBOS.registerQueue(queue.name, { workerConcurrency: queue.workerConcurrency, minPollingIntervalMs: queue.pollingMs ?? 100, onConflict: 'always_update' });
    // Only this process takes work from its own queue: where the runs it adopts are put.
    await DBOS.registerQueue(this.adoptionQueue(), { minPollingIntervalMs: 200, onConflict: 'always_update' });
    this.launched = true;
    this.carried(carried);
  }

  runsOfOtherVersions(): Promise<{ runId: string; name: string; version: string; executor: string }[]> {
    return runsOfOtherVersions(this.options.systemDatabaseUrl, this.version());
  }

  private version(): string {
    return this.options.applicationVersion ?? appVersion();
  }

  private executorId(): string {
    return this.options.executorId ?? 'local';
  }

  private adoptionQueue(): string {
    return `agentcsd-adopted-${this.executorId()}`;
  }

  /**
   * Before DBOS launches (and would recover them onto a queue any process takes from): the runs this
   * executor left unfinished — running, or waiting on its own queue — are parked under
   * `parked:<executor>`, which nothing dispatches, until the cluster says whose sessions they are:
   * this process takes back those of the sessions it holds (`adopt`), the process that took the
   * others takes theirs. Runs of the shared work queue go back to it as DBOS would put them.
   */
  private park(): Promise<number> {
    return withClient(this.options.systemDatabaseUrl, async (client) => {
      const parked = await client.query(
        `UPDATE dbos.workflow_status
            SET status = 'PENDING', executor_id = 'parked:' || executor_id, queue_name = NULL, started_at_epoch_ms = NULL, owner_xid = NULL,
                updated_at = (EXTRACT(EPOCH FROM now()) * 1000)::bigint
          WHERE executor_id = $1 AND (status = 'PENDING' OR (status = 'ENQUEUED' AND queue_name = $2))
            AND (queue_name IS NULL OR queue_name = $2 OR queue_name = '_dbos_internal_queue')`,
        [this.executorId(), this.adoptionQueue()],
      );
      return parked.rowCount ?? 0;
    }).catch((error: unknown) => noRunsYet(error).length); // a database DBOS has not set up yet has nothing to park
  }

  /**
   * The runs dead processes left unfinished are put on this process's own queue, so they continue
   * here (DBOS's own recovery puts them on a queue every process takes from, and a task's run must
   * run where its session's mind now is). The same update DBOS's recovery makes, with our queue,
   * for runs of this version — and of a version no live member runs (`liveVersions`), restamped
   * with this one (run-versions.ts). `parked`: the owners' parked runs only (`parked:<owner>`).
   */
  async adopt(owners: readonly string[], runs?: { ids: readonly string[]; prefixes: readonly string[] }, options: AdoptOptions = {}): Promise<number> {
    if (!this.launched || (owners.length === 0 && !options.liveMembers)) return 0;
    const self = DBOS.executorID;
    const { moved, carried } = await adoptRuns(this.options.systemDatabaseUrl, {
      queue: this.adoptionQueue(),
      executor: self,
      // A dead process's runs, and the ones a launch parked (its own, or a dead one's).
      executors: options.parked ? owners.map((owner) => `parked:${owner}`) : owners.flatMap((owner) => [owner, `parked:${owner}`]),
      notExecutors: options.liveMembers ? runningElsewhere(self, options.liveMembers) : null,
      version: DBOS.applicationVersion,
      liveVersions: options.liveVersions ?? null,
      names: [...this.names],
      ids: runs ? [...runs.ids] : null,
      prefixes: runs ? [...runs.prefixes] : [],
    });
    for (const runId of moved) this.adoptedRuns.add(runId);
    this.carried(carried);
    return moved.length;
  }

  /**
   * Stops; runs left unfinished stay pending and are recovered by the next launch under this
   * executor id. DBOS lets go of the database first: a run aborted while DBOS could still write
   * would be recorded as failed (or cancelled) and never recovered.
   */
  async shutdown(): Promise<void> {
    this.stopping = true;
    if (this.launched) await DBOS.shutdown({ deregister: true });
    const local = [...this.controllers.values()];
    for (const { controller } of local) controller.abort(new RunCancelledError('shutdown'));
    await Promise.all(local.map((run) => run.unwound));
    this.launched = false;
  }

  /**
   * Runs `work` in the async context this engine was made in, outside any run: a run started from
   * inside another run's step (a task delegating to a specialist, issue 34) is a run of its own,
   * which DBOS refuses to start from a step's context.
   */
  private readonly outside = AsyncResource.bind(<T>(work: () => T): T => work());

  async start<Input, Output>(runId: string, workflow: Workflow<Input, Output>, input: Input): Promise<Output> {
    // A run DBOS already knows (adopted, or recovered at launch and asked for again by its
    // service) is waited on, not started again: the same handle, without DBOS's queue warning.
    const known = this.adoptedRuns.delete(runId) || (await this.outside(() => this.status(runId))) !== 'unknown';
    const handle = known
      ? DBOS.retrieveWorkflow<Output>(runId)
      : await this.outside(() => DBOS.startWorkflow(this.registeredFor(workflow), { workflowID: runId })(input));
    try {
      return (await this.outside(() => handle.getResult())) as Output;
    } catch (error) {
      if ((await this.status(runId)) === 'cancelled') throw new RunCancelledError(runId);
      throw error;
    }
  }

  /** Puts the run on the shared work queue: whichever process takes it first runs it. */
  async enqueue<Input>(runId: string, workflow: Workflow<Input, unknown>, input: Input): Promise<void> {
    if (!this.options.workQueue) throw new Error('this engine has no work queue');
    const queueName = this.options.workQueue.name;
    await this.outside(() => DBOS.startWorkflow(this.registeredFor(workflow), { workflowID: runId, queueName })(input));
  }

  private registeredFor(workflow: Workflow<never, unknown>): Registered {
    const registered = this.registered.get(workflow as Workflow<unknown, unknown>);
    if (!registered) throw new Error('define() the workflow before starting it');
    return registered;
  }

  async signal(runId: string, name: string, payload: unknown): Promise<boolean> {
    if ((await this.status(runId)) !== 'running') return false;
    // Wrapped: a payload of null must not read as recv's "nothing came".
    await DBOS.send(runId, { payload }, name);
    return true;
  }

  async cancel(runId: string): Promise<boolean> {
    if ((await this.status(runId)) !== 'running') return false;
    // DBOS records the cancel first: a run aborted here before that would end as an error (failed).
    await DBOS.cancelWorkflow(runId);
    this.controllers.get(runId)?.controller.abort(new RunCancelledError(runId));
    return true;
  }

  async forget(runId: string): Promise<void> {
    if ((await this.status(runId)) === 'running') return;
    await DBOS.deleteWorkflow(runId);
  }

  async status(runId: string): Promise<RunStatus> {
    const status = await DBOS.getWorkflowStatus(runId);
    switch (status?.status) {
      case undefined:
        return 'unknown';
      case 'PENDING':
      case 'ENQUEUED':
        return 'running';
      case 'SUCCESS':
        return 'completed';
      case 'CANCELLED':
        return 'cancelled';
      default:
        return 'failed';
    }
  }

  private contextFor(runId: string, signal: AbortSignal): WorkflowContext {
    const cancelled = new Promise<never>((_resolve, reject) => {
      const fail = () => reject(new RunCancelledError(runId));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    cancelled.catch(() => undefined); // observed only when raced
    const untilCancelled = <T>(work: Promise<T>) => Promise.race([work, cancelled]);
    const clock = this.options.clock ?? realClock;
    return {
      runId,
      signal,
      step: (name, fn, options) =>
        untilCancelled(
          DBOS.runStep(
            () =>
              runWithRetries({
                runId,
                step: name,
                fn,
                options,
                signal,
                sleep: (ms, abort) => clock.sleep(ms, abort),
              }),
            { name },
          ),
        ),
      async waitFor<T>(name: string): Promise<T> {
        for (;;) {
          const message = await untilCancelled(DBOS.recv<{ payload: T }>(name, RECV_SECONDS));
          if (message) return message.payload;
        }
      },
      sleep: async (ms) => {
        await untilCancelled(DBOS.sleep(ms)).catch((error: unknown) => {
          if (!(error instanceof RunCancelledError)) throw error;
        });
      },
      now: () => clock.now(),
    };
  }
}

/**
 * DBOS's system database URL with PostgreSQL's idle-in-transaction timeout as a startup option
 * (DBOS's own default, 60 s). Without it DBOS sets the timeout with a query of its own on each new
 * connection, which overlaps the borrower's first query: pg's "client is already executing a query"
 * warning at every start (issue 73 §9). Given in the URL, DBOS leaves the connection alone.
 */
export function withIdleTransactionTimeout(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const options = url.searchParams.get('options') ?? '';
    if (options.includes('idle_in_transaction_session_timeout')) return databaseUrl;
    url.searchParams.set('options', `${options} -c idle_in_transaction_session_timeout=60000`.trim());
    return url.toString();
  } catch {
    return databaseUrl; // not a URL DBOS can read either: its own error says so
  }
}
