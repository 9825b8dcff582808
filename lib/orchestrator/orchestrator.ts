// The orchestrator: one per process, in the process state (lib/process), started only by server.ts. It wires the
// sessions' lifecycle (create, pause, resume, delete) to their minds, and owns the event bus
// the realtime layer reads. The logic of a running mind lives in session-mind.ts.
import type { BrowserPool } from '@/lib/browser/browser-pool';
import { randomUUID } from 'node:crypto';
import { addSessionPeople, OWNER_ID } from '@/lib/store/people-repository';
import { mergeModels, type ModelsConfig, type SessionParams } from '@/lib/config/model-config';
import { realClock } from '@/lib/clock/clock';
import { Housekeeping } from './housekeeping';
import { noteShutdownPause, resumeAfterShutdown } from './shutdown-pause';
import { appCliWarmPool } from '@/lib/backends/cli-warm-pool';
import { readPersonaBytes } from '@/lib/personas/persona-files';
import type { MessageRecord } from '@/lib/store/messages-repository';
import { deleteSessionLogs, writePersonaSnapshot } from '@/lib/store/session-logs';
import { storePersonaSnapshot } from '@/lib/store/session-files';
import { SessionResidence } from './session-residence';
import { deleteSession, findSession, insertSession, listSessionIdsByStatus, updateSession, type SessionRecord } from '@/lib/store/sessions-repository';
import { readMcpSettings, readSettings } from '@/lib/store/settings-repository';
import { markFilesSent, messageWithAttachments } from './file-attachments';
import { ElicitationBroker, ElicitationError, type ElicitationAnswer, type ElicitationJson } from '@/lib/mcp/elicitation';
import { VectorIndexer } from '@/lib/memory/vector-indexer';
import { sessionGraphParts } from '@/lib/capabilities/capability-tools';
import { delegationHost } from './delegation-host';
import { listSkills } from '@/lib/skills/skill-files';
import { effectivePersonaGraph, narrowToGraph, readSessionGraph, snapshotSessionGraph } from '@/lib/capabilities/graph-store';
import { InMemoryEngine } from '@/lib/engine/in-memory-engine';
import type { ExecutionEngine } from '@/lib/engine/execution-engine';
import type { ConfiguredEngine } from '@/lib/engine/create-engine';
import type { Cluster } from '@/lib/engine/cluster';
import { TaskService, type TaskElsewhere } from '@/lib/tasks/task-service';
import { interruptRunningToolCalls, toolCallJson, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { applyToolCallDecision, type ToolCallDecisionInput, type ToolCallDecisionResult } from '@/lib/agent/tool-decisions';
import type { AgentMcpEndpoint } from '@/lib/agent/agent-mcp-endpoint';
import { EventBus, type MindState } from '@/lib/mind/events';
import { SessionNotFoundError, SessionPausedError } from '@/lib/mind/session-errors';
import { SessionMind } from '@/lib/session-mind/session-mind';
import { mindDependencies, type MindDependencies, type MindDependencyOptions } from '@/lib/session-mind/mind-dependencies';
import type { McpPool } from '@/lib/mcp/mcp-pool';
import { SessionPlacement } from './session-placement';
import { ChannelService } from '@/lib/channels/channel-service';
import { channelHost } from './channel-host';
import { Scheduler, type TriggerHost } from '@/lib/triggers/scheduler';
import { whenSchedulesChange } from '@/lib/triggers/schedule-service';
import { triggerHost } from './trigger-host';
import { currentTraceparent, inSpan } from '@/lib/telemetry/traces';

export type { SendMessageInput, CreateSessionInput, UpdateSessionInput } from './session-changes';
import { defaultSessionName, type CreateSessionInput, type SendMessageInput, type UpdateSessionInput } from './session-changes';
import { processSlot } from '@/lib/process/process-state';

/** How long a shutdown waits for running cycles and replies before cutting them off. */
const shutdownGraceMs = 3_000;

export type OrchestratorOptions = MindDependencyOptions & {
  /** Seed 003's *Working* pause between a task's steps (default 3 s); how often a task paused by a daily allowance looks again (a minute). */
  taskWorkingDelayMs?: number;
  taskAllowanceLookMs?: number;
  /** What runs tasks (default in memory); a durable engine launches after this constructor defined its workflows. */
  engine?: ExecutionEngine;
  /** Several processes on one PostgreSQL: which sessions' minds run here (lib/engine/cluster.ts). */
  cluster?: Cluster;
  /** Connects the channels here — Telegram, Discord, Slack, IRC, email (the app's process; a worker does not). */
  channels?: boolean;
};

export class Orchestrator {
  readonly bus = new EventBus();
  /** Where each session's mind runs: here, or in another process on the same database. */
  private readonly placement: SessionPlacement;
  private started = false;
  private stopScheduleNotices: (() => void) | null = null;
  /** In a cluster, a session's persona snapshot and workspace follow it through the database. */
  private readonly residence: SessionResidence;
  private readonly minds = new Map<string, SessionMind>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly deps: MindDependencies;
  /** Goals the agent pursues on its own (lib/tasks). */
  readonly tasks: TaskService;
  /** Embeds new messages and memories in the background while an embeddings endpoint is set. */
  readonly vectors = new VectorIndexer();
  /** The channels — Telegram, Discord, Slack, IRC, email (lib/channels); null in a process that does not connect them. */
  readonly channels: ChannelService | null;
  /** Schedules (lib/triggers): one timer for all of them; every process runs one, each slot fires once. */
  readonly scheduler: Scheduler;
  /** What MCP servers ask the user mid-call: cards in the chat, answered over REST. */
  readonly elicitations = new ElicitationBroker((elicitation) => this.bus.emit('elicitation', elicitation.session_id, { elicitation }));
  /** What schedules and webhooks may do here (the webhook route uses it too). */
  readonly triggerHost: TriggerHost;
  /** The hourly chores: expired memories, sign-ins and invites removed. */
  private readonly housekeeping: Housekeeping;

  /** Options exist for tests (a scripted backend, a simulated clock); the app uses the defaults. */
  constructor(options: OrchestratorOptions = {}) {
    const clock = options.clock ?? realClock;
    const engine = options.engine ?? new InMemoryEngine(clock);
    this.channels = options.channels ? new ChannelService(channelHost(this), { leased: !!options.cluster }) : null;
    this.triggerHost = triggerHost(this, clock);
    this.scheduler = new Scheduler(this.triggerHost);
    this.housekeeping = new Housekeeping(clock);
    this.deps = mindDependencies(options, { bus: this.bus, clock, engine, elicitations: () => this.elicitations });
    this.tasks = new TaskService({
      bus: this.bus,
      engine,
      mind: (id) => this.minds.get(id) ?? null,
      workingDelayMs: options.taskWorkingDelayMs ?? 3_000,
      ...(options.taskAllowanceLookMs !== undefined && { allowanceLookMs: options.taskAllowanceLookMs }),
      ...(options.cluster && { elsewhere: (request: TaskElsewhere) => this.placement.runElsewhere(request) }),
      delegation: delegationHost({ createSession: (input, options) => this.createSession(input, options), pauseSession: (id) => this.pauseSession(id), tasks: () => this.tasks, bus: this.bus }),
    });
    this.residence = new SessionResidence(options.cluster?.owner ?? null);
    this.placement = new SessionPlacement(
      {
        started: () => this.started,
        mind: (id) => this.minds.get(id),
        runningIds: () => [...this.minds.keys()],
        startMind: (session) => this.startMind(session),
        stopMind: async (id) => {
          await this.starting.get(id)?.catch(() => undefined);
          const mind = this.minds.get(id);
          this.minds.delete(id);
          await mind?.stop({ graceMs: shutdownGraceMs });
          if (mind) await this.residence.left(id);
        },
        tasks: () => this.tasks,
        eventPosition: (id) => ({ bootId: this.bus.bootId, lastSeq: this.bus.lastSeq(id) }),
        approvals: this.deps.approvals,
        engine,
        channels: this.channels,
        schedulesChanged: () => this.scheduler.poke(),
        mcpAuthChanged: (server) => void this.deps.mcp.reconnect(server),
        answerElicitation: (id, answer) => this.elicitations.answer(id, answer as ElicitationAnswer),
      },
      options.cluster ?? null,
    );
  }

  /** The user's MCP servers (Settings, /api/mcp-servers). */
  get mcp(): McpPool {
    return this.deps.mcp;
  }

  /** server.ts, once listening: where the Claude Code CLI reaches the app's tools. */
  setToolServer(endpoint: AgentMcpEndpoint | null): void {
    this.deps.toolServer.current = endpoint;
  }

  get toolServer(): AgentMcpEndpoint | null {
    return this.deps.toolServer.current;
  }

  /** Active sessions (running at a crash, or paused by a graceful stop) resume, with their history and numbering. */
  async start(): Promise<void> {
    this.started = true;
    // A tool call that was running when the process died is never run again: the model is told.
    // (With other processes some run now: a session's are marked when its mind starts here.)
    const interrupted = this.placement.cluster ? 0 : await interruptRunningToolCalls();
    if (interrupted > 0) console.warn(`[tools] ${interrupted} tool call(s) were running when the app stopped: marked interrupted`);
    // MCP servers start in the background; a broken configuration row must not stop the app.
    try {
      await this.deps.mcp.configure(await readMcpSettings());
    } catch (error) {
      console.error('[mcp] the stored MCP servers could not be read; none started', error);
    }
    // What a shutdown paused runs again (the user's pauses stay); alone, every active mind runs here, with others those it holds.
    await resumeAfterShutdown((id) => this.setStatus(id, 'active', 'the app started again'));
    await this.placement.start(() => listSessionIdsByStatus({ status: 'active' }));
    this.vectors.start();
    await this.channels?.start().catch((error: unknown) => console.error('[channels] could not start', error));
    await this.scheduler.start().catch((error: unknown) => console.error('[schedules] could not start', error));
    this.housekeeping.start();
    // A schedule made here may be due before another process's timer looks again: tell them; a
    // workspace a tool changed here is kept for the process that may run the session next.
    if (this.placement.cluster) {
      const stopWatching = this.residence.watch(this.bus);
      const stopNotices = whenSchedulesChange(() => void this.placement.broadcast({ kind: 'schedules-changed' }).catch(() => undefined));
      this.stopScheduleNotices = () => (stopWatching(), stopNotices());
      // A sign-in finished (or ended) here: the other processes connect that server again.
      this.deps.mcp.onAuthChanged((server) => void this.placement.broadcast({ kind: 'mcp-auth-changed', server }).catch(() => undefined));
    }
  }

  /** Closing the program pauses every running session (seed 000 section 10.4). */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.tasks.beginShutdown(); // tasks stay running or blocked for the restart
    await this.channels?.stop();
    this.stopScheduleNotices?.();
    await this.scheduler.stop();
    await this.housekeeping.stop();
    await Promise.allSettled([...this.starting.values()]); // a mind starting now is stopped (and its workspace kept) too
    const ids = [...this.minds.keys()];
    const minds = [...this.minds.values()];
    this.minds.clear();
    await Promise.all(minds.map((mind) => mind.stop({ graceMs: shutdownGraceMs })));
    await Promise.all(ids.map((id) => this.residence.left(id)));
    await this.deps.mcp.stop();
    await this.deps.browser.stop(); // each session's sign-ins are saved first
    appCliWarmPool().closeAll();
    await this.vectors.stop();
    await this.tasks.stop();
    // With other live processes, this one's sessions go on there; alone, closing pauses them (and the next start resumes them).
    if (await this.placement.leave()) return;
    const running = await noteShutdownPause(await listSessionIdsByStatus({ status: 'active' }));
    for (const id of running) await this.setStatus(id, 'paused', 'server shut down');
  }

  /** Where the session's event numbering stands, in the process whose mind emits its events. */
  eventPosition(id: string) {
    return this.placement.eventPosition(id);
  }

  /** The processes sharing the database, their load and the last hour's moves; null when alone. */
  readonly clusterView = () => this.placement.view();

  /** What the session's mind is doing, or null when it is not running in this process. */
  mindState(id: string): MindState | null {
    return this.minds.get(id)?.state() ?? null;
  }

  /** The exact last prompt of each layer, or null when the session's mind is not running here. */
  lastPrompts(id: string) {
    return this.minds.get(id)?.lastPrompts() ?? null;
  }

  /** The agent's Chromium (issue 45): the session page watches and takes it over through this. */
  get browser(): BrowserPool {
    return this.deps.browser;
  }

  /** The owner vouched for a session's content (untrusted/clear): a mind running here shows it again. */
  vouchForSession(id: string): void {
    this.minds.get(id)?.vouch();
  }

  summaries(id: string) {
    return this.minds.get(id)?.summaries() ?? null;
  }

  /** `options.untrustedSource`: the words are another server's (a webhook's payload): the turn answering them asks before sending out. */
  async sendUserMessage(id: string, input: SendMessageInput, options: { untrustedSource?: string } = {}): Promise<MessageRecord> {
    const { text, fileIds, untrustedSource } = input.attachments?.length ? await messageWithAttachments(this.deps.mcp, { id, connectedServers: (await this.requireSession(id)).params.mcp_servers }, input) : { text: input.text, fileIds: [], untrustedSource: null };
    const message = await inSpan({ kind: 'message', sessionId: id }, () => this.deliverMessage(id, text, options.untrustedSource ?? untrustedSource ?? undefined));
    await markFilesSent(id, fileIds, message.id);
    return message;
  }

  private async deliverMessage(id: string, text: string, untrustedSource?: string): Promise<MessageRecord> {
    // A mind is the live session (it refuses while paused): no database read on a reply's path.
    await this.starting.get(id); // one being started (it moved here a moment ago) is waited for
    const mind = this.minds.get(id);
    if (mind) return mind.sendUserMessage(text, untrustedSource);
    await this.requireSession(id); // 404 for an unknown session
    const place = await this.placement.placeOf(id);
    if ('here' in place && place.here) return place.here.sendUserMessage(text, untrustedSource);
    if (!('owner' in place)) throw new SessionPausedError(id);
    const traceparent = currentTraceparent(); // the turn answering it, over there, is in this trace
    const message = (await this.placement.remote(place.owner, { kind: 'message', sessionId: id, text, ...(untrustedSource && { untrustedSource }), ...(traceparent && { traceparent }) })) as MessageRecord;
    return { ...message, createdAt: new Date(message.createdAt) };
  }

  /**
   * A person's answer to an MCP server's question. The question waits in the process whose call
   * asked it: with other processes, an answer this one does not know goes to the session's holder.
   */
  async answerElicitation(id: string, answer: ElicitationAnswer, sessionId?: string): Promise<ElicitationJson> {
    try {
      return this.elicitations.answer(id, answer);
    } catch (error) {
      if (!(error instanceof ElicitationError && error.code === 'not_found') || !sessionId || !this.placement.cluster) throw error;
      const place = await this.placement.placeOf(sessionId);
      if (!('owner' in place)) throw error;
      return (await this.placement.remote(place.owner, { kind: 'elicitation-answer', sessionId, id, answer })) as ElicitationJson;
    }
  }

  /**
   * A person's decision on a tool call, applied once on the server (lib/agent/tool-decisions.ts);
   * the waiting step wakes and every open page sees the new status.
   */
  async decideToolCall(input: ToolCallDecisionInput, actor: Parameters<typeof applyToolCallDecision>[1]): Promise<ToolCallDecisionResult> {
    const outcome = await applyToolCallDecision(input, actor);
    if (outcome.ok) await this.wakeToolCall(outcome.call);
    return outcome;
  }

  /** A call's row changed for the step waiting on it (a decision, a client's output: issue 78 §1): it wakes, here or in the process that runs it; every page sees it. */
  async wakeToolCall(call: ToolCallRecord): Promise<void> {
    this.deps.approvals.notify(call.id);
    await this.placement.broadcast({ kind: 'tool-call-decided', callId: call.id });
    this.bus.emit('tool-call', call.sessionId, { call: toolCallJson(call) });
  }

  /** The Stop button on one running call: its sandbox goes, the turn goes on with the result. */
  async cancelToolCall(callId: string): Promise<boolean> {
    if (this.deps.approvals.cancelRunning(callId)) return true;
    return this.placement.broadcast({ kind: 'tool-call-cancelled', callId }); // it may run in another process
  }

  async stopTurn(id: string): Promise<boolean> {
    await this.requireSession(id);
    const place = await this.placement.placeOf(id);
    if ('owner' in place) return (await this.placement.remote(place.owner, { kind: 'stop-turn', sessionId: id })) as boolean;
    return place.here?.stopTurn() ?? false;
  }

  /** Starts the session's mind once, however many callers ask at the same moment. */
  private startMind(session: SessionRecord): Promise<void> {
    const pending = this.starting.get(session.id);
    if (pending) return pending;
    // Stopping: a start asked for on the way (a reconcile still looping) would outlive stop().
    if (this.minds.has(session.id) || !this.started) return Promise.resolve();
    const started = this.launchMind(session).finally(() => this.starting.delete(session.id));
    this.starting.set(session.id, started);
    return started;
  }

  private async launchMind(session: SessionRecord): Promise<void> {
    if (this.placement.cluster) await this.residence.arrived(session.id);
    const personaCore = await this.residence.personaCore(session);
    const mind = new SessionMind(session, personaCore, this.deps, await sessionGraphParts(session.id, this.deps.browser));
    this.minds.set(session.id, mind);
    await mind.start();
    await this.tasks.schedule(session.id); // a task under way continues, a pending one starts
  }

  /**
   * A new session; `people` are whose conversation it is (issue 42): the owner's by default (the
   * page), a paired person's when a chat opens it, the parent's people for a specialist's.
   */
  async createSession(input: CreateSessionInput, options: { people?: readonly string[] } = {}): Promise<SessionRecord> {
    const { bytes, hash } = readPersonaBytes(input.persona);
    const settings = await readSettings();
    const models: ModelsConfig = mergeModels(input.models ?? {}, settings.models);
    // What the persona's agent graph connects is all the session may use (a snapshot, like the persona's).
    const { graph, stored } = await effectivePersonaGraph(input.persona, Object.keys((await readMcpSettings()).mcpServers), listSkills({ persona: input.persona }).skills.map((skill) => skill.name));
    const snapshot = { graph, fromDefault: !stored };
    const params: SessionParams = { ...settings.params, ...input.params };
    Object.assign(params, narrowToGraph(params, snapshot));
    const id = randomUUID();
    const now = new Date();
    // Snapshot first: a row without its snapshot would be a session that cannot prove its persona.
    writePersonaSnapshot({ sessionId: id, content: bytes });
    try {
      const session = await insertSession({
        id,
        name: input.name || defaultSessionName(input.persona, now),
        personaName: input.persona,
        personaHash: hash,
        models,
        params,
        status: 'active',
      });
      await addSessionPeople(id, options.people?.length ? options.people : [OWNER_ID]);
      await storePersonaSnapshot(id, bytes); // in a cluster it follows the session to any machine
      await snapshotSessionGraph(id, graph, snapshot.fromDefault);
      this.bus.emit('session-status', id, { status: 'active' });
      if (this.started && (await this.placement.mayStartHere(id))) await this.startMind(session);
      return session;
    } catch (error) {
      deleteSessionLogs(id);
      throw error;
    }
  }

  async updateSession(id: string, input: UpdateSessionInput): Promise<SessionRecord> {
    const current = await this.requireSession(id);
    const models = input.models ? mergeModels(input.models, current.models) : undefined;
    const params = input.params ? { ...current.params, ...input.params } : undefined;
    if (params) Object.assign(params, narrowToGraph(params, await readSessionGraph(id)));
    const updated = await updateSession({ id, name: input.name, models, params });
    if (!updated) throw new SessionNotFoundError(id);
    if (input.name !== undefined) this.bus.emit('session-updated', id, { name: updated.name });
    this.minds.get(id)?.update(updated);
    await this.placement.sessionChanged(updated);
    return updated;
  }

  /** The mind finishes its current cycle and reply (persisting them), then parks. */
  async pauseSession(id: string): Promise<SessionRecord> {
    await this.requireSession(id);
    const updated = await this.setStatus(id, 'paused');
    this.minds.get(id)?.pause();
    await this.deps.browser.close(id);
    await this.placement.sessionChanged(updated);
    return updated;
  }

  async resumeSession(id: string): Promise<SessionRecord> {
    await this.requireSession(id);
    const updated = await this.setStatus(id, 'active');
    const mind = this.minds.get(id);
    if (mind) mind.resume();
    else if (this.placement.cluster) await this.placement.sessionChanged(updated);
    else if (this.started) await this.startMind(updated);
    await this.tasks.schedule(id);
    return updated;
  }

  async deleteSession(id: string): Promise<void> {
    await this.requireSession(id);
    const mind = this.minds.get(id);
    this.minds.delete(id);
    await mind?.stop({ graceMs: 0 });
    if (!(await deleteSession({ id }))) throw new SessionNotFoundError(id);
    await this.deps.browser.forget(id);
    deleteSessionLogs(id);
    this.bus.emit('session-deleted', id, {});
  }

  private async requireSession(id: string): Promise<SessionRecord> {
    const session = await findSession({ id });
    if (!session) throw new SessionNotFoundError(id);
    return session;
  }

  private async setStatus(id: string, status: SessionRecord['status'], reason?: string): Promise<SessionRecord> {
    const updated = await updateSession({ id, status, touch: true });
    if (!updated) throw new SessionNotFoundError(id);
    this.bus.emit('session-status', id, { status, ...(reason && { reason }) });
    return updated;
  }
}

const orchestratorSlot = processSlot<Orchestrator | undefined>('orchestrator.orchestrator', () => undefined);

/** The running orchestrator; server.ts (or a test) must have started one. */
export function getOrchestrator(): Orchestrator {
  const orchestrator = orchestratorSlot.value;
  if (!orchestrator) throw new Error('The orchestrator is not running; start the app with `npm run dev`.');
  return orchestrator;
}

export async function startOrchestrator(options: OrchestratorOptions & { configured?: ConfiguredEngine } = {}): Promise<Orchestrator> {
  const existing = orchestratorSlot.value;
  if (existing) return existing;
  const { configured, ...rest } = options;
  const orchestrator = new Orchestrator({ ...rest, ...(configured && { engine: configured.engine }) });
  // The durable engine knows the orchestrator's workflows now; it recovers its runs as it launches
  // (a recovered task waits for its session's mind, which `start` brings back).
  await configured?.launch();
  orchestratorSlot.value = orchestrator;
  await orchestrator.start();
  return orchestrator;
}

export async function stopOrchestrator(): Promise<void> {
  const orchestrator = orchestratorSlot.value;
  orchestratorSlot.value = undefined;
  await orchestrator?.stop();
}
