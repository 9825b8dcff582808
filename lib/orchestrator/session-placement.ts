// Where each session's mind runs (issue 19). Alone, every active session's mind runs in this
// process. With other processes on the same PostgreSQL (lib/engine/cluster.ts) a session's mind
// runs in the one holding its lease: what needs the mind — a message, Stop, a settings change, a
// task's answer or cancel — runs here when it is held here (started now when nobody alive holds
// it), or is sent to the holder as a call; its errors come back as the same errors.
import type { Cluster, ClusterBroadcast, ClusterMember, ClusterRequest } from '@/lib/engine/cluster';
import type { ClusterView } from '@/lib/engine/cluster-placement';
import { ClusterCallError } from '@/lib/engine/cluster';
import type { ExecutionEngine } from '@/lib/engine/execution-engine';
import { findSession, type SessionRecord } from '@/lib/store/sessions-repository';
import { busySessions, sessionRuns, sessionsWithOpenTasks } from '@/lib/store/session-activity';
import { TaskError, type TaskElsewhere, type TaskService } from '@/lib/tasks/task-service';
import type { ApprovalBroker } from '@/lib/tools/approval-broker';
import { ElicitationError } from '@/lib/mcp/elicitation';
import { SessionPausedError } from '@/lib/mind/session-errors';
import type { SessionMind } from '@/lib/session-mind/session-mind';
import type { ChannelService } from '@/lib/channels/channel-service';
import { errorText } from '@/lib/errors/error-text';
import { runPlan } from '@/lib/engine/run-plans';

/** What the orchestrator lends: its minds, and what the calls of other processes reach. */
export interface PlacementHost {
  started(): boolean;
  mind(id: string): SessionMind | undefined;
  runningIds(): string[];
  startMind(session: SessionRecord): Promise<void>;
  stopMind(id: string): Promise<void>;
  tasks(): TaskService;
  /** This process's event numbering for the session. */
  eventPosition(id: string): EventPosition;
  approvals: ApprovalBroker;
  engine: ExecutionEngine;
  /** The channels this process connects, when it connects any. */
  channels: ChannelService | null;
  /** Another process made or changed a schedule: this one's timer looks again. */
  schedulesChanged(): void;
  /** A remote MCP server was signed in or out in another process. */
  mcpAuthChanged(server: string): void;
  /** An answer to a question an MCP server asked during a call running here. */
  answerElicitation(id: string, answer: Extract<ClusterRequest, { kind: 'elicitation-answer' }>['answer']): unknown;
}

export type Place = { here: SessionMind | null } | { owner: string };

export interface EventPosition {
  bootId: string;
  lastSeq: number;
}

/** How often a member looks for runs nobody will bring back (a stopped old release's). */
const SWEEP_MS = 10_000;

export class SessionPlacement implements ClusterMember {
  /** Present only where channels run: the cluster gives this process its share of them. */
  readonly reconcileChannels?: (owned: ReadonlySet<string>) => Promise<void>;
  /** Sessions being handed to another member: requests for them wait, then go where they went. */
  private readonly releasing = new Map<string, Promise<void>>();
  /** When the last sweep for runs to continue began (carryOver). */
  private sweptAt = Date.now();

  constructor(
    private readonly host: PlacementHost,
    readonly cluster: Cluster | null,
  ) {
    const channels = host.channels;
    if (channels) this.reconcileChannels = (owned) => channels.reconcile(owned);
  }

  /** Alone: every active session's mind starts here. With others: this process joins them. */
  async start(activeIds: () => Promise<string[]>): Promise<void> {
    if (!this.cluster) return this.reconcile(new Set(await activeIds()));
    await this.cluster.join(this);
    // The runs this process's name left unfinished were parked at launch (lib/engine/dbos-engine.ts):
    // those of the sessions it holds now — and of paused ones, which nobody holds — continue here;
    // a member that took the others adopts theirs with them (issue 43 §1).
    const adopted = await this.carryOver();
    if (adopted > 0) console.log(`[cluster] took back ${adopted} unfinished run(s) of this process's sessions`);
  }

  /**
   * The unfinished runs of the sessions this process holds (and of paused ones nobody holds) that
   * no live member runs — its own parked ones, a dead member's — continue here; one of a version no
   * live member runs is carried onto this one (issue 60). Swept at start and whenever a member goes,
   * so a run waiting for the last process of an old release continues when that process stops.
   */
  private async carryOver(): Promise<number> {
    const cluster = this.cluster!;
    if (!this.host.engine.adopt) return 0; // in memory: runs died with their process
    const mine = await cluster.sessionsNotHeldByOthers([...(await cluster.owned()), ...(await sessionsWithOpenTasks())]);
    if (mine.length === 0) return 0;
    const [view, liveVersions] = await Promise.all([cluster.view(), cluster.liveVersions()]);
    return this.host.engine.adopt([], await sessionRuns(mine), { liveMembers: view.members.map((member) => member.name), liveVersions });
  }

  /** The Cluster view — each member's version, and the runs waiting for a version with what will happen to them (issue 60) — or null alone. */
  async view(): Promise<(ClusterView & { version: string; waiting_runs: { run_id: string; name: string; version: string; holder: string; plan: string }[] }) | null> {
    if (!this.cluster) return null;
    const [view, waiting] = await Promise.all([this.cluster.view(), this.host.engine.runsOfOtherVersions?.() ?? []]);
    const current = this.cluster.appVersion;
    return { ...view, version: current, waiting_runs: waiting.map((run) => ({ run_id: run.runId, name: run.name, version: run.version, holder: run.executor, plan: runPlan(run, view.members, current, SWEEP_MS / 1000) })) };
  }

  /** Minds start for the sessions held (active ones) and stop for the ones another process took. */
  async reconcile(owned: ReadonlySet<string>): Promise<void> {
    if (!this.host.started()) return;
    // Now and then, the sweep (a member of an old release may have stopped without handing anything here).
    if (this.cluster && Date.now() - this.sweptAt > SWEEP_MS) {
      this.sweptAt = Date.now();
      void this.carryOver().catch((error: unknown) => console.warn('[cluster] looking for runs to continue failed:', errorText(error)));
    }
    for (const id of this.host.runningIds()) if (!owned.has(id)) await this.host.stopMind(id);
    for (const id of owned) {
      if (this.host.mind(id)) continue;
      const session = await findSession({ id });
      if (!this.host.started()) return; // stopping meanwhile: no mind starts now
      if (session?.status === 'active') await this.host.startMind(session);
    }
  }

  /**
   * Where a session's mind runs: here (started now when nobody alive holds it) or the name of the
   * process that holds it. Alone, always here.
   */
  async placeOf(id: string): Promise<Place> {
    await this.releasing.get(id);
    const mind = this.host.mind(id);
    if (mind || !this.cluster) return { here: mind ?? null };
    const owner = await this.cluster.claim(id);
    if (owner && owner !== this.cluster.owner) return { owner };
    const session = await findSession({ id });
    if (session?.status === 'active' && this.host.started()) await this.host.startMind(session);
    return { here: this.host.mind(id) ?? null };
  }

  /** A new session's mind starts here unless another process took it first. */
  async mayStartHere(id: string): Promise<boolean> {
    return !this.cluster || (await this.cluster.claim(id)) === this.cluster.owner;
  }

  /** Runs the request in the process holding the session; a remote refusal comes back as the same error. */
  async remote(owner: string, request: ClusterRequest): Promise<unknown> {
    try {
      return await this.cluster!.call(owner, request);
    } catch (error) {
      // Its holder died before taking the call (withdrawn, never run): it goes to the next holder.
      if (error instanceof ClusterCallError && error.remoteName === 'ClusterOwnerGone' && request.kind !== 'elicitation-answer') {
        const place = await this.placeOf(request.sessionId);
        if ('owner' in place && place.owner !== owner) return this.remote(place.owner, request);
        if (!('owner' in place)) return this.handle(request, true);
      }
      if (error instanceof ClusterCallError && error.remoteName === 'SessionPausedError') throw new SessionPausedError(request.sessionId);
      if (error instanceof ClusterCallError && error.remoteName === 'TaskError') throw new TaskError(error.remoteCode as TaskError['code'], error.message);
      if (error instanceof ClusterCallError && error.remoteName === 'ElicitationError') throw new ElicitationError(error.remoteCode as ElicitationError['code'], error.message);
      throw error;
    }
  }

  /** The session's row changed: its mind, in the process that holds it, reads it again. */
  async sessionChanged(session: SessionRecord): Promise<void> {
    if (this.host.mind(session.id) || !this.cluster) return;
    const place = await this.placeOf(session.id);
    if ('owner' in place) await this.remote(place.owner, { kind: 'session-changed', sessionId: session.id });
  }

  /** A task request for a session held by another process runs there (true); false: it is held here. */
  async runElsewhere(request: TaskElsewhere): Promise<boolean> {
    const place = await this.placeOf(request.sessionId);
    if (!('owner' in place)) return false;
    await this.remote(place.owner, request);
    return true;
  }

  /** The numbering of the session's events where its mind runs: a browser's join reads it. */
  async eventPosition(id: string): Promise<EventPosition> {
    const place = this.cluster && !this.host.mind(id) ? await this.placeOf(id) : null;
    if (place && 'owner' in place) return (await this.remote(place.owner, { kind: 'event-position', sessionId: id })) as EventPosition;
    return this.host.eventPosition(id);
  }

  /** Tells every process (a decided card's step, or a running call, may be in any of them). */
  async broadcast(event: ClusterBroadcast): Promise<boolean> {
    if (!this.cluster) return false;
    await this.cluster.broadcast(event);
    return true;
  }

  /** A request from another process for a session whose mind runs here. */
  async handle(request: ClusterRequest, forwarded = false): Promise<unknown> {
    // The question waits in this process's broker, whatever the mind is doing.
    if (request.kind === 'elicitation-answer') return this.host.answerElicitation(request.id, request.answer);
    // Sent while the session was moving away from here: it goes where the session went (once).
    await this.releasing.get(request.sessionId);
    if (this.cluster && !forwarded && !this.host.mind(request.sessionId) && !(await this.cluster.holds(request.sessionId))) {
      const place = await this.placeOf(request.sessionId);
      if ('owner' in place) return this.remote(place.owner, request);
    }
    // Its lease may have come a moment before its mind: the mind is started (or awaited) first.
    const session = await findSession({ id: request.sessionId });
    if (session?.status === 'active' && this.host.started()) await this.host.startMind(session);
    const mind = this.host.mind(request.sessionId);
    if (request.kind === 'message') {
      if (!mind) throw new SessionPausedError(request.sessionId);
      return mind.sendUserMessage(request.text, request.untrustedSource, request.traceparent);
    }
    if (request.kind === 'stop-turn') return mind?.stopTurn() ?? false;
    if (request.kind === 'event-position') return this.host.eventPosition(request.sessionId);
    if (request.kind === 'task-resume') return (await this.host.tasks().resume(request.taskId, request.input)).id;
    if (request.kind === 'task-cancel') return (await this.host.tasks().cancel(request.taskId)).id;
    if (!session || !mind) return null;
    mind.update(session);
    if (session.status === 'paused') mind.pause();
    else mind.resume();
    await this.host.tasks().schedule(session.id);
    return null;
  }

  hear(event: ClusterBroadcast): void {
    if (event.kind === 'tool-call-decided') this.host.approvals.notify(event.callId);
    else if (event.kind === 'tool-call-cancelled') this.host.approvals.cancelRunning(event.callId);
    else if (event.kind === 'mcp-auth-changed') this.host.mcpAuthChanged(event.server);
    else this.host.schedulesChanged();
  }

  /** A dead or departed process's sessions came here: their unfinished durable runs (tasks) continue here too. */
  async tookOver(previous: ReadonlyMap<string, readonly string[]>): Promise<void> {
    const adopted = await this.carryOver();
    const count = [...previous.values()].reduce((sum, sessions) => sum + sessions.length, 0);
    console.log(`[cluster] took over ${count} session(s) of ${[...previous.keys()].join(', ')}${adopted ? ` and ${adopted} unfinished run(s)` : ''}`);
  }

  /**
   * Another member now wins these sessions: the quiet ones (no turn under way, no tool call
   * running or awaiting a decision, no task) have their minds stopped here and their leases moved;
   * requests arriving meanwhile wait, then follow them. A busy one waits for a later round.
   */
  async handOver(candidates: readonly string[], transfer: (ids: readonly string[]) => Promise<readonly string[]>): Promise<void> {
    const busy = await busySessions(candidates);
    const quiet = candidates.filter((id) => !busy.has(id) && !this.host.mind(id)?.state().turn && !this.releasing.has(id));
    if (quiet.length === 0) return;
    let done!: () => void;
    const moving = new Promise<void>((resolve) => (done = resolve));
    for (const id of quiet) this.releasing.set(id, moving);
    try {
      await Promise.all(quiet.map((id) => this.host.stopMind(id)));
      const moved = new Set(await transfer(quiet));
      // One the lease could not move for (taken meanwhile): its mind comes back with the next reconcile.
      if (moved.size > 0) console.log(`[cluster] handed ${moved.size} session(s) over to even the load`);
    } finally {
      for (const id of quiet) this.releasing.delete(id);
      done();
    }
  }

  /**
   * Leaves the other processes, if any: true when live ones remain, which take this one's sessions
   * at once (they go on there); false when this process was alone (closing pauses them).
   */
  async leave(): Promise<boolean> {
    return (await this.cluster?.leave()) ?? false;
  }
}
