// One running session's mind: the Subconscious loop and the Internal Dialog turns, concurrent,
// with turns serialised and user messages queued (never dropped). Status is explicit
// (`idle → running ⇄ paused → stopping → stopped`); the loop parks at a resume gate when
// paused, sleeps at a wake gate (wake-gate.ts) so input wakes it, backs off after failures and
// never dies of one. Every output is persisted (DB, then JSONL) before its event is emitted.
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import { appCliWarmPool } from '@/lib/backends/cli-warm-pool';
import { emptyUsageByLayer, insertUserMessage, loadMindSnapshot, type CallLayer, type UsageTotals } from '@/lib/store/mind-repository';
import { messageJson, type MessageRecord } from '@/lib/store/messages-repository';
import { reconcileLogsReporting } from '@/lib/store/log-reconcile';
import { failureText, logFailure } from '@/lib/store/store-faults';
import { appendLogRecords, logRecordOf } from '@/lib/store/session-logs';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { MindState, PromptRecord } from '@/lib/mind/events';
import { SessionPausedError } from '@/lib/mind/session-errors';
import type { MindDependencies } from './mind-dependencies';
import { IdleConsolidation } from '@/lib/memory/idle-consolidation';
import type { SessionGraphParts } from '@/lib/capabilities/capability-tools';
import { loadResumableTurns } from '@/lib/agent/resume-turns';
import type { StopKind } from '@/lib/agent/session-toolbox';
import type { CycleOutcome, TurnResult } from '@/lib/mind/outcomes';
import { runInternalDialogTurn } from './internal-dialog-turn';
import type { TurnWork } from './turn-work';
import { TurnQueue } from './turn-queue';
import { WakeGate } from './wake-gate';
import { MindRest } from './mind-rest';
import { createMindContext } from './create-mind-context';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import type { RoutedDelta } from '@/lib/mind/tags/reply-router';
import { appendLogsSafely, yieldToIO, type MindContext } from './mind-context';
import { MindMemory } from './mind-memory';
import { failureEvent, LayerHealth, type MindLayer } from './layer-health';
import { currentActivity, cycleDelayMs, spontaneousVerdict, type Activity } from '@/lib/mind/pacing';
import { announceCycle, runCycleGivingWay } from './subconscious-cycle';
import { FencedWriteError } from '@/lib/store/lease-fence';
import { assertNever } from '@/lib/mind/assert-never';
import { currentTraceparent } from '@/lib/telemetry/traces';

export type MindStatus = 'idle' | 'running' | 'paused' | 'stopping' | 'stopped';

export class SessionMind {
  private status: MindStatus = 'idle';
  private memory!: MindMemory;
  private context!: MindContext;
  /** Memory consolidation while the user is away (lib/memory). */
  private idleMemory!: IdleConsolidation;
  private readonly stopController = new AbortController();
  private readonly gate: WakeGate;
  /** Rest between cycles (issue 74): chosen, deepening or stored until something happens. */
  private readonly rest: MindRest;
  private cycleRequested = false;
  private loopDone: Promise<void> = Promise.resolve();
  private cycleRunning = false;
  private nextCycleAt: number | null = null;
  private readonly health: LayerHealth;
  /** The running cycle's allowance for giving way to replies (foreground-gate.ts). */
  private giveWay: () => Promise<void> | undefined = () => undefined;
  /** Entered when a message arrived, handed to the turn that answers it. */
  private pendingForeground: (() => void) | null = null;
  private readonly prompts: Partial<Record<CallLayer, PromptRecord>> = {};
  private settleStarted!: (error?: Error) => void;
  /** Settles once start() has loaded the mind; rejects if it stops first. */
  private readonly started = new Promise<void>((resolve, reject) => (this.settleStarted = (error) => (error ? reject(error) : resolve())));

  private readonly turns = new TurnQueue();
  /** Turns that acted before a restart (a card waiting, a call interrupted): continued first. */
  private turnLoopActive = false;
  private turnsDone: Promise<void> = Promise.resolve();
  private turn: { turnId: string; spontaneous: boolean; answering: number[]; controller: AbortController } | null = null;
  private consecutiveSpontaneous = 0;
  private lastUserAt = 0;
  private lastTurnEndedAt: number | null = null;
  private readonly usage: Record<CallLayer, UsageTotals> = emptyUsageByLayer();

  constructor(
    private session: SessionRecord,
    private readonly personaCore: string,
    private readonly deps: MindDependencies,
    /** From the session's capability graph: agent.core's instructions, and tools configured on its nodes. */
    private readonly graph: SessionGraphParts = { tools: [], instructions: null, skills: 'all' },
  ) {
    this.health = new LayerHealth(() => deps.clock.now(), deps.random);
    this.gate = new WakeGate(deps.clock);
    this.rest = new MindRest(deps.clock, this.gate);
    this.started.catch(() => undefined);
  }

  get sessionId(): string {
    return this.session.id;
  }

  /** Loads the mind's state with bounded queries and starts (or, when `paused`, parks) the loop. */
  async start(options: { paused?: boolean } = {}): Promise<void> {
    if (this.status !== 'idle') return;
    await reconcileLogsReporting(this.session.id); // a crash can leave the logs behind the DB
    const snapshot = await loadMindSnapshot({ sessionId: this.session.id, windowSize: this.deps.memoryLimit });
    this.memory = new MindMemory(snapshot, this.deps.memoryLimit);
    this.context = createMindContext({
      session: () => this.session,
      personaCore: this.personaCore,
      graph: this.graph,
      memory: this.memory,
      deps: this.deps,
      health: this.health,
      prompts: this.prompts,
      usage: this.usage,
      giveWay: () => this.giveWay(),
      changed: () => this.emitState(),
    });
    this.idleMemory = new IdleConsolidation({ context: this.context, bus: this.deps.bus, now: () => this.deps.clock.now() });
    this.turns.restore(await loadResumableTurns({ sessionId: this.session.id, unanswered: snapshot.unanswered }), snapshot.unanswered);
    this.consecutiveSpontaneous = snapshot.consecutiveSpontaneous;
    Object.assign(this.usage, snapshot.usage);
    this.lastUserAt = this.deps.clock.now();
    this.status = options.paused ? 'paused' : 'running';
    this.loopDone = this.runLoop();
    if (this.status === 'running') this.drainTurns();
    this.emitState();
    this.settleStarted();
  }

  /** A task's run recovered at launch finds the mind registered before it has loaded: it waits for this. */
  whenStarted(): Promise<void> {
    return this.started;
  }

  state(): MindState {
    const running = this.status === 'running';
    return {
      running,
      activity: this.activity(),
      rest: running ? this.rest.state() : null,
      cycle: this.memory?.shared.cycle ?? 0,
      cycleRunning: this.cycleRunning,
      nextCycleAt: running && this.nextCycleAt !== null ? new Date(this.nextCycleAt).toISOString() : null,
      turn: this.turn && { turnId: this.turn.turnId, spontaneous: this.turn.spontaneous, answering: this.turn.answering },
      queued: this.turns.queuedMessages,
      consecutiveSpontaneous: this.consecutiveSpontaneous,
      ...this.health.shown(),
    };
  }

  /** The summaries in effect (the first entry of each layer's history). */
  summaries() {
    return structuredClone(this.memory.summaries);
  }

  /** The exact last prompt of each layer (the context viewer). */
  lastPrompts(): Partial<Record<CallLayer, PromptRecord>> {
    return structuredClone(this.prompts);
  }

  /** Persists the message (DB, then JSONL), announces, queues it, wakes the Subconscious; `untrustedSource`: another server's words (§20); `traceparent`: the trace its turn continues. */
  async sendUserMessage(text: string, untrustedSource?: string, traceparent = currentTraceparent()): Promise<MessageRecord> {
    if (this.status !== 'running') throw new SessionPausedError(this.session.id);
    // The reply starts here: background work gives way from now on, not only once the turn runs.
    const leaveForeground = this.deps.foreground.enter();
    this.idleMemory.cancel();
    let message: MessageRecord;
    try {
      message = await insertUserMessage({ sessionId: this.session.id, content: text, cycleNumber: this.memory.shared.cycle, untrustedSource: untrustedSource ?? null });
    } catch (error) {
      leaveForeground();
      throw error;
    }
    this.pendingForeground?.();
    this.pendingForeground = leaveForeground;
    appendLogsSafely(() => appendLogRecords({ sessionId: this.session.id, file: 'external', records: [logRecordOf(message)] }), this.session.id);
    const queued = this.turn !== null;
    this.deps.bus.emit('message-persisted', this.session.id, { message: messageJson(message), queued });
    this.memory.recordUser(text, untrustedSource ?? null);
    this.turns.pushMessage(message, traceparent);
    this.consecutiveSpontaneous = 0;
    this.lastUserAt = this.deps.clock.now();
    this.cycleRequested = true;
    this.drainTurns();
    this.gate.wakeSoon();
    return message;
  }

  /** The owner vouched for the session's content: its withheld pieces are shown again. */
  vouch(): void {
    this.memory.vouch();
  }

  /** Ends the reply being written, if any. */
  stopTurn(): boolean {
    if (!this.turn) return false;
    this.turn.controller.abort();
    return true;
  }

  /** The current cycle and turn finish and are persisted; then the mind parks. */
  pause(): void {
    if (this.status !== 'running') return;
    this.status = 'paused';
    appCliWarmPool().release(this.session.id); // a Claude Code process started ahead for this mind alone waits no longer
    this.gate.wake();
    this.emitState();
  }

  resume(): void {
    if (this.status !== 'paused') return;
    this.status = 'running';
    this.lastUserAt = this.deps.clock.now();
    this.memory.recordToolActivity('the user resumed the session'); // news: a resting mind looks again
    this.gate.wake();
    this.drainTurns();
    this.emitState();
  }

  /** New settings (models, params) apply from the next call; a pacing change applies now. */
  update(session: SessionRecord): void {
    const modelsChanged = JSON.stringify(session.models) !== JSON.stringify(this.session.models);
    const paramsChanged = JSON.stringify(session.params) !== JSON.stringify(this.session.params);
    this.session = session;
    // News (issue 74 §2): a resting mind looks again with its new settings.
    if (modelsChanged || paramsChanged) this.memory.recordToolActivity(`the session's ${modelsChanged ? 'models' : 'settings'} changed`);
    // New models deserve a fresh start: no backoff or failure count carried over from the old.
    if (modelsChanged) this.health.reset();
    this.gate.wake();
    if (modelsChanged) this.emitState();
  }

  /**
   * Stops for good: lets the running cycle and turn finish for up to `graceMs` (their output is
   * persisted), then aborts them. A reply cut off here is kept, marked interrupted.
   */
  async stop(options: { graceMs: number }): Promise<void> {
    if (this.status === 'stopped' || this.status === 'stopping') return this.settled();
    this.status = 'stopping';
    appCliWarmPool().release(this.session.id);
    this.settleStarted(new Error('the session stopped'));
    this.gate.wake();
    const grace = new AbortController();
    await Promise.race([this.settled(), this.deps.clock.sleep(options.graceMs, grace.signal), this.deps.approvals.whenWaiting(this.session.id, grace.signal)]);
    grace.abort();
    this.stopController.abort();
    await this.settled();
    this.turns.failPendingSteps(new Error('the session stopped'));
    this.pendingForeground?.();
    this.pendingForeground = null;
    this.status = 'stopped';
  }

  /**
   * One step of a task, run as an Internal Dialog turn after the turn running now (the user's
   * messages queued meanwhile go with it: they steer the task). Waits while the session is paused.
   */
  runTaskStep(task: TaskTurn, resume?: TurnWork['resume']): Promise<TurnResult> {
    if (this.status === 'stopping' || this.status === 'stopped') return Promise.reject(new Error('the session stopped'));
    const settled = this.turns.pushTaskStep(task, resume);
    this.drainTurns();
    return settled;
  }

  /** A line about a task's progress for the Subconscious's next cycle (beside the tool activity). */
  noteForSubconscious(line: string): void {
    this.memory.recordToolActivity(line);
    this.gate.wakeSoon(); // news: a resting mind looks again
  }

  /** While a task runs, messages wait for its next step; when it stops they get a turn of their own. */
  setTaskActive(active: boolean): void {
    this.turns.taskActive = active;
    if (!active) this.drainTurns();
  }

  private settled(): Promise<void> {
    return Promise.all([this.loopDone, this.turnsDone]).then(() => undefined);
  }

  // ── The Subconscious loop ────────────────────────────────────────────────────────────────

  /** The loop: a cycle, the memory's idle work, then the rest until the next (mind-rest.ts); parked while paused. */
  private runLoop(): Promise<void> {
    return this.rest.run({
      status: () => this.status,
      cycledBefore: this.memory.shared.cycle > 0,
      lastActivityAt: this.session.lastActivityAt.getTime(),
      runCycle: () => this.runCycle(),
      afterCycle: async () => void (await this.idleMemory.afterCycle(this.activity(), this.stopController.signal)),
      params: () => this.session.params,
      activity: () => this.activity(),
      news: () => this.memory.news,
      lastUserAt: () => this.lastUserAt,
      backoffUntil: () => this.health.backoffUntil,
      cycleRequested: () => this.cycleRequested,
      waited: () => void (this.cycleRequested = false),
      setNextCycleAt: (at) => this.setNextCycleAt(at),
      dream: async () => void (await this.idleMemory.afterCycle('resting', this.stopController.signal)),
    });
  }

  private async runCycle(): Promise<void> {
    const cycle = this.memory.shared.cycle + 1;
    this.cycleRunning = true;
    this.cycleRequested = false;
    const { restEnded, idle } = this.rest.beginCycle(this.memory.news, this.session.params);
    this.deps.bus.emit('cycle-start', this.session.id, { cycle });
    this.emitState();
    // One engine run per cycle; the mind's stop aborts it (the engine's cancel is the shutdown's).
    const outcome = await this.deps.cycles.run({ sessionId: this.session.id, cycle }, () =>
      runCycleGivingWay({
        context: this.context,
        cycle,
        rest: { restEnded, idle },
        foreground: this.deps.foreground,
        stop: this.stopController.signal,
        // The running cycle's allowance, also for what it calls through the context.
        setGiveWay: (giveWay) => (this.giveWay = giveWay),
      }),
    );
    this.cycleRunning = false;
    switch (outcome.kind) {
      case 'aborted':
        break;
      case 'failed':
        this.recordFailure('subconscious', outcome.message, outcome.errorKind, { cycle, retryAfterMs: outcome.retryAfterMs });
        break;
      case 'persisted':
        this.health.success('subconscious');
        this.rest.cyclePersisted(outcome.rest, this.session.params.time_zone);
        await yieldToIO();
        this.announceCycle(outcome);
        break;
      default:
        assertNever(outcome);
    }
    this.emitState();
  }

  private announceCycle(outcome: Extract<CycleOutcome, { kind: 'persisted' }>): void {
    const busy = this.turn !== null || this.turns.busy || this.status !== 'running';
    const spontaneous = this.rest.unlessQuiet(spontaneousVerdict(this.session.params, outcome, this.consecutiveSpontaneous, busy), outcome.sLoud, this.session.params);
    if (spontaneous === 'started') this.turns.pushSpontaneous();
    announceCycle(this.deps.bus, this.session.id, outcome, spontaneous);
    if (spontaneous === 'started') this.drainTurns();
  }

  // ── Internal Dialog turns, one at a time ─────────────────────────────────────────────────

  private drainTurns(): void {
    if (this.turnLoopActive || this.status !== 'running') return;
    this.turnLoopActive = true;
    this.turnsDone = this.runTurns();
  }

  private async runTurns(): Promise<void> {
    for (;;) {
      // Choosing the next work and clearing the flag happen in one synchronous step, so a
      // message arriving as the loop ends always finds it either running or restartable.
      const work = this.status === 'running' ? this.nextWork() : null;
      if (!work) {
        this.turnLoopActive = false;
        return;
      }
      try {
        await this.runTurn(work);
      } catch (error) {
        this.turns.settle(work.turnId, { error: error as Error });
        this.turn = null;
        // The session moved on while this process was away: its new holder answers; this mind ends.
        if (error instanceof FencedWriteError) return void (this.turnLoopActive = false);
        logFailure(`[mind ${this.session.id}] turn ${work.turnId} failed`, error);
        this.recordFailure('internal', `Could not save the reply: ${failureText(error)}`, 'protocol', { turnId: work.turnId });
        this.deps.bus.emit('turn-end', this.session.id, { turnId: work.turnId, outcome: 'failed', spontaneous: work.spontaneous, messages: [], error: failureText(error) });
      }
    }
  }

  private nextWork(): TurnWork | null {
    return this.turns.next(() => this.memory.takeForTurn());
  }

  private async runTurn(work: TurnWork): Promise<void> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    this.stopController.signal.addEventListener('abort', abort, { once: true });
    const taskIds = work.task ? { taskId: work.task.taskId, traceId: work.task.traceId } : {};
    const answering = work.userMessages.map((message) => message.id);
    this.turn = { turnId: work.turnId, spontaneous: work.spontaneous, answering, controller };
    this.deps.bus.emit('turn-start', this.session.id, { turnId: work.turnId, spontaneous: work.spontaneous, answering, cycle: work.taken.cycle, ...taskIds });
    this.emitState();
    this.gate.wakeSoon(); // the Subconscious paces itself by what the Internal Dialog is doing
    const leaveForeground = this.pendingForeground ?? this.deps.foreground.enter();
    this.pendingForeground = null;
    try {
      const onDelta = (delta: RoutedDelta) => this.deps.bus.emit(delta.channel === 'loud' ? 'reply-delta' : 'thought-delta', this.session.id, { turnId: work.turnId, text: delta.text });
      const stopKind = () => (this.stopController.signal.aborted ? 'shutdown' : 'user') as StopKind;
      // A task's cancel stops its step like the Stop button (cards cancelled, tools killed).
      work.task?.signal.addEventListener('abort', abort, { once: true });
      if (work.task?.signal.aborted) abort();
      const run = () => runInternalDialogTurn(this.context, work, controller.signal, onDelta, stopKind);
      // A conversation turn is a run of its own; a task's step already runs in its task's run.
      const result = work.task ? await run() : await this.deps.turnRuns.run({ sessionId: this.session.id, turnId: work.turnId }, run);
      if (work.spontaneous) this.consecutiveSpontaneous++;
      if (result.error) this.recordFailure('internal', result.error.message, result.error.kind, { turnId: work.turnId });
      else if (result.outcome === 'complete') this.health.success('internal');
      this.turn = null;
      this.deps.bus.emit('turn-end', this.session.id, {
        turnId: work.turnId,
        outcome: result.outcome,
        spontaneous: work.spontaneous,
        messages: result.messages.map(messageJson),
        ...(result.error && { error: result.error.message }),
        ...taskIds,
      });
      this.turns.settle(work.turnId, { result });
    } finally {
      work.task?.signal.removeEventListener('abort', abort);
      leaveForeground();
      this.stopController.signal.removeEventListener('abort', abort);
      this.turn = null;
      this.lastTurnEndedAt = this.deps.clock.now();
      this.gate.wake();
      this.emitState();
    }
  }

  // ── Failures, usage, state ────────────────────────────────────────────────────────────────

  private recordFailure(layer: MindLayer, message: string, kind: BackendErrorKind, where: { cycle?: number; turnId?: string; retryAfterMs?: number }): void {
    const { failures, backoffMs } = this.health.failure(layer, kind, message, where.retryAfterMs);
    const pacingDelayMs = cycleDelayMs(this.session.params.pacing, this.activity());
    this.deps.bus.emit('error', this.session.id, failureEvent({ layer, message, kind, failures, backoffMs, pacingDelayMs, ...where }));
  }

  private activity(): Activity {
    return currentActivity({
      now: this.deps.clock.now(),
      lastUserAt: this.lastUserAt,
      turnRunning: this.turn !== null,
      lastTurnEndedAt: this.lastTurnEndedAt,
      spontaneousCapReached: this.consecutiveSpontaneous >= this.session.params.spontaneous_cap,
    });
  }

  private setNextCycleAt(at: number | null): void {
    if (at === this.nextCycleAt) return;
    this.nextCycleAt = at;
    this.emitState();
  }

  private emitState(): void {
    if (this.status === 'idle' || this.status === 'stopped') return;
    this.deps.bus.emit('mind-state', this.session.id, { state: this.state() });
  }
}
