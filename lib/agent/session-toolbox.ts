// A session's tools at work: proposes a step's calls (each one's approval decided by the server
// — policy, rules, never the model's text), commits them before any card is shown, waits for a
// person where one must decide, and runs what was approved exactly once.
import { inSpan } from '@/lib/telemetry/traces';
import { randomUUID } from 'node:crypto';
import type { BackendTool, ImageBlock, StreamPart } from '@/lib/backends/model-backend';
import {
  cancelPendingToolCall,
  closeAgentTurn,
  finishToolCall,
  getToolCall,
  insertAgentStep,
  startToolCall,
  type AgentTurnRecord,
  type NewToolCall,
  type ToolCallRecord,
  INTERRUPTED_RESULT,
} from '@/lib/store/tool-calls-repository';
import type { ApprovalBroker } from '@/lib/tools/approval-broker';
import type { ApprovalRule } from '@/lib/store/tool-rules-repository';
import { decideByRules, type CallFacts } from '@/lib/tools/approval-rules';
import type { ToolRegistry } from './tool-registry';
import { WorkspacePathError, displayPath, resolveWorkspacePath } from '@/lib/tools/workspace';
import type { TrustSettings } from '@/lib/config/trust-config';
import type { Tool, ToolRunContext } from '@/lib/tools/tool-types';
import { markSessionUntrusted, readTrust, sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import { callTool, type Conversation } from '@/lib/people/rights';
import { resultOrigin, sendsOut, untrustedDescriptions, untrustedLabel } from './untrusted-turn';
import { errorText } from '@/lib/errors/error-text';
import { storeFault, writeThroughFault } from '@/lib/store/store-faults';

export type ModelToolCall = Extract<StreamPart, { type: 'tool-call' }>;

/** Why a turn's signal aborted: the user's Stop cancels waiting cards; a shutdown keeps them. */
export type StopKind = 'user' | 'shutdown';

export interface ToolboxEvents {
  callChanged(call: ToolCallRecord): void;
  output(callId: string, chunk: { stream: 'stdout' | 'stderr'; text: string }): void;
}

export interface ToolboxDependencies {
  sessionId: string;
  registry: ToolRegistry;
  /** The conversation as the rights authority read it for this turn: its people and what they may use. */
  conversation: Conversation;
  /** Tools of the session the authority did not offer this conversation, with its reason. */
  refused?: ReadonlyMap<string, string>;
  broker: ApprovalBroker;
  events: ToolboxEvents;
  /** The always-allow / deny rules in force for this session (its own and its persona's). */
  loadRules(): Promise<ApprovalRule[]>;
  /** Creates the workspace when missing; its real path. */
  workspaceDir(): string;
  /** The task whose step this is: its calls carry its id and trace id. */
  task?: { taskId: string; traceId: string };
  /** Whether the layer's model sees images now (view_image). */
  sight?: () => ToolRunContext['sight'];
  /** Folders bound read-only into the sandbox (skills). */
  readOnlyMounts?: () => NonNullable<ToolRunContext['readOnlyMounts']>;
}

/** A model reads at most this much of one result; the row keeps it all (the panel's "show all"). */
export const MODEL_RESULT_CAP_CHARS = 30_000;

export function capForModel(content: string): string {
  if (content.length <= MODEL_RESULT_CAP_CHARS) return content;
  const half = MODEL_RESULT_CAP_CHARS / 2;
  const dropped = content.length - MODEL_RESULT_CAP_CHARS;
  return `${content.slice(0, half)}\n[… ${dropped} characters cut from the middle …]\n${content.slice(-half)}`;
}

export class SessionToolbox {
  constructor(private readonly deps: ToolboxDependencies) {}

  get sessionId(): string {
    return this.deps.sessionId;
  }

  /**
   * Images a call showed the model (view_image), by call id: each later step of the turn sends
   * the same blocks. Dropped when the turn closes; a turn continued after a restart has the call's
   * words only (the model can look again).
   */
  private readonly shownImages = new Map<string, { turnId: string; images: ImageBlock[] }>();
  /** Calls this toolbox committed as running (startApproved): each is run once, by the first settle. */
  private readonly startedHere = new Set<string>();

  imagesOf(callId: string): ImageBlock[] | undefined {
    return this.shownImages.get(callId)?.images;
  }

  /** Ends a turn: calls left undecided or unrun are cancelled, and every open page sees it. */
  async closeTurn(turnId: string): Promise<void> {
    for (const [callId, shown] of this.shownImages) if (shown.turnId === turnId) this.shownImages.delete(callId);
    for (const call of await closeAgentTurn({ sessionId: this.deps.sessionId, turnId })) this.deps.events.callChanged(call);
  }

  definitions(): BackendTool[] {
    return this.deps.registry.definitions();
  }

  /** The facts a rule is matched on, taken from the arguments by the server. */
  private factsOf(name: string, args: Record<string, unknown>): CallFacts {
    const facts: CallFacts = { tool: name };
    if (typeof args.command === 'string') facts.command = args.command;
    if (typeof args.code === 'string') facts.code = args.code;
    if (typeof args.path === 'string') {
      try {
        const root = this.deps.workspaceDir();
        facts.workspacePath = displayPath(root, resolveWorkspacePath(root, args.path));
      } catch (error) {
        if (!(error instanceof WorkspacePathError)) throw error;
        facts.workspacePath = null;
      }
    }
    return facts;
  }

  /**
   * Why calls of this step that send data out must ask (§20): the session's untrusted content, or
   * the unapproved tool descriptions the turn offers — null when the turn holds none. Read once per
   * step, and only when a call would send something out.
   */
  private async untrustedReason(trust: TrustSettings): Promise<string | null> {
    const source = await sessionUntrustedSource(this.deps.sessionId);
    if (source) return source;
    const offered = this.definitions().flatMap((definition) => this.deps.registry.get(definition.name) ?? []);
    return untrustedDescriptions(offered, trust);
  }

  /** Each call's starting status, decided here and only here (who may: the rights authority). */
  private async initialStatus(call: ModelToolCall, rules: ApprovalRule[], untrusted: (tool: Tool, args: unknown) => Promise<string | null>): Promise<NewToolCall> {
    const base = { id: randomUUID(), providerCallId: call.id, name: call.name, args: call.input };
    const tool = this.deps.registry.get(call.name);
    const notHere = (reason: string): NewToolCall => ({ ...base, approval: 'none', status: 'failed', result: `CAPABILITY_NOT_AVAILABLE: ${call.name} is not available in this conversation: ${reason}. Do without it, or tell them so.` });
    if (!tool) {
      const refused = this.deps.refused?.get(call.name);
      if (refused) return notHere(refused);
      return { ...base, approval: 'none', status: 'failed', result: `CAPABILITY_NOT_AVAILABLE: there is no tool named "${call.name}" in this session. Available: ${this.deps.registry.definitions().map((definition) => definition.name).join(', ') || 'none'}.` };
    }
    let approval: NewToolCall['approval'] = tool.approval === 'required' ? 'required' : 'none';
    if (call.input === null) return { ...base, approval, status: 'failed', result: call.inputError ?? 'The arguments are not a JSON object' };
    const parsed = tool.args.safeParse(call.input);
    if (!parsed.success) {
      const details = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ');
      return { ...base, approval, status: 'failed', result: `Invalid arguments for ${call.name}: ${details}` };
    }
    // The authority again, on this very call: what it would do (a shared memory asks the owner alone).
    const rights = callTool(this.deps.conversation, call.name, tool.traits, tool.callTraits?.(parsed.data) ?? []);
    if (rights.verdict === 'refuse') return notHere(rights.reason);
    const ownerOnly = rights.verdict === 'ask';
    const screened = await tool.screen?.(parsed.data, { sessionId: this.deps.sessionId });
    if (screened) return { ...base, approval: 'none', status: 'failed', result: screened };
    if (tool.approvalFor) approval = tool.approvalFor(parsed.data) === 'required' ? 'required' : 'none';
    if (ownerOnly) return { ...base, approval: 'required', status: 'awaiting_approval', ownerOnly };
    const verdict = decideByRules(rules, this.factsOf(call.name, call.input));
    if (verdict.verdict === 'deny') {
      return { ...base, approval, status: 'denied', decision: { decision: 'deny', by: { person_id: null, via: `rule:${verdict.rule.id}` } }, result: `Denied by a rule the user set for ${call.name}.` };
    }
    // Untrusted content in the turn: whatever the rules say, what would leave is shown to a person first.
    const untrustedReason = await untrusted(tool, parsed.data);
    if (untrustedReason) return { ...base, approval: 'required', status: 'awaiting_approval', untrustedReason };
    if (verdict.verdict === 'allow') return { ...base, approval, status: 'approved', decision: { decision: 'approve', by: { person_id: null, via: `rule:${verdict.rule.id}` } } };
    if (approval === 'none') return { ...base, approval, status: 'approved', decision: { decision: 'approve', by: { person_id: null, via: 'rule:policy' } } };
    return { ...base, approval, status: 'awaiting_approval' };
  }

  /** Commits the step and its calls (before any card is shown), then announces them. */
  async propose(input: {
    turn: Omit<AgentTurnRecord, 'status' | 'sessionId'>;
    step: number;
    assistantText: string;
    calls: ModelToolCall[];
    /** Approved calls start in the same commit (the step loop runs them at once). */
    startApproved?: boolean;
  }): Promise<ToolCallRecord[]> {
    const rules = await this.deps.loadRules();
    let trust: TrustSettings | null = null;
    let reason: Promise<string | null> | null = null;
    const untrusted = async (tool: Tool, args: unknown) => {
      if (typeof tool.source !== 'object' && !tool.sendsOut?.(args)) return null; // most calls: no read at all
      trust ??= await readTrust();
      if (!sendsOut(tool, args, trust)) return null;
      reason ??= this.untrustedReason(trust);
      return reason;
    };
    const calls: NewToolCall[] = [];
    for (const call of input.calls) {
      const proposed = await this.initialStatus(call, rules, untrusted);
      calls.push(input.startApproved && proposed.status === 'approved' ? { ...proposed, status: 'running' } : proposed);
    }
    const task = this.deps.task;
    const records = await insertAgentStep({
      sessionId: this.deps.sessionId,
      turn: input.turn,
      step: input.step,
      assistantText: input.assistantText,
      calls,
      ...(task && { taskId: task.taskId, traceId: task.traceId }),
    });
    for (const record of records) {
      if (record.status === 'running') this.startedHere.add(record.id);
      this.deps.events.callChanged(record);
    }
    return records;
  }

  /**
   * Brings a call to its final state: waits for a decision if it needs one, runs it if
   * approved. On a user's Stop a waiting card is cancelled; on a shutdown it is left waiting
   * (the restart shows it again).
   */
  async settle(call: ToolCallRecord, signal: AbortSignal, stopKind: () => StopKind): Promise<ToolCallRecord> {
    // Started in the commit that proposed it (startApproved): this is the one run. One found running
    // in the store otherwise (a step tried again after the database went away while it ran) may have
    // run: it is never run again, and the model is told (issue 73 §3).
    if (call.status === 'running' && call.finishedAt === null) {
      if (this.startedHere.delete(call.id)) return this.execute(call, signal, stopKind);
      const ended = await finishToolCall({ id: call.id, status: 'interrupted', result: INTERRUPTED_RESULT, isError: true, running: call });
      if (ended) this.deps.events.callChanged(ended);
      return ended ?? call;
    }
    const current = await this.awaitDecision(call, signal, stopKind);
    if (current.status === 'approved') return this.run(current, signal, stopKind);
    return current;
  }

  /**
   * Waits until a person (or a rule) decided the call, without running it. On a user's Stop the
   * card is cancelled; on a shutdown it is left waiting.
   */
  async awaitDecision(call: ToolCallRecord, signal: AbortSignal, stopKind: () => StopKind): Promise<ToolCallRecord> {
    if (call.status !== 'awaiting_approval') return this.waitForDecision(call, signal, stopKind);
    // The wait for a person is a span of its own (lib/telemetry): how long, and who decided what.
    const started = Date.now();
    return inSpan({ kind: 'approval', name: call.name, callId: call.providerCallId, sessionId: this.deps.sessionId }, async (span) => {
      const decided = await this.waitForDecision(call, signal, stopKind);
      span.tool({ status: decided.status, decision: decided.decision?.decision ?? null, decidedBy: decided.decision?.by.via ?? null, waitedMs: Date.now() - started });
      return decided;
    });
  }

  private async waitForDecision(call: ToolCallRecord, signal: AbortSignal, stopKind: () => StopKind): Promise<ToolCallRecord> {
    let current = call;
    while (current.status === 'awaiting_approval') {
      const woken = this.deps.broker.wait(current.id, this.deps.sessionId, signal); // registered before the read: no lost wake-up
      current = (await getToolCall({ id: current.id })) ?? current;
      if (current.status !== 'awaiting_approval') break;
      if (signal.aborted) {
        if (stopKind() === 'shutdown') return current;
        current = (await cancelPendingToolCall({ id: current.id, result: 'Cancelled: the user stopped the turn before deciding.' })) ?? current;
        this.deps.events.callChanged(current);
        return current;
      }
      await woken;
    }
    // Decided elsewhere (a denial): announced here too, so every listener learns it is final.
    if (current.status !== call.status && current.status !== 'approved') this.deps.events.callChanged(current);
    return current;
  }

  /** A call of this session, as stored now. */
  async find(id: string): Promise<ToolCallRecord | null> {
    const call = await getToolCall({ id });
    return call && call.sessionId === this.deps.sessionId ? call : null;
  }

  private async run(call: ToolCallRecord, signal: AbortSignal, stopKind: () => StopKind): Promise<ToolCallRecord> {
    if (signal.aborted) {
      if (stopKind() === 'shutdown') return call;
      const cancelled = await cancelPendingToolCall({ id: call.id, result: 'Cancelled: the turn was stopped before it ran.' });
      if (cancelled) this.deps.events.callChanged(cancelled);
      return cancelled ?? call;
    }
    const startedAt = new Date();
    if (!(await startToolCall({ id: call.id, at: startedAt }))) return (await getToolCall({ id: call.id })) ?? call; // it ran elsewhere
    return this.execute({ ...call, status: 'running', startedAt }, signal, stopKind);
  }

  /** Runs a call already marked running (by a compare-and-set or in its proposing commit). */
  private async execute(running: ToolCallRecord, signal: AbortSignal, stopKind: () => StopKind): Promise<ToolCallRecord> {
    const call = running;
    if (signal.aborted) {
      // Stopped between its commit and its start: it never ran.
      const shutdown = stopKind() === 'shutdown';
      const ended = await finishToolCall({ id: call.id, status: shutdown ? 'interrupted' : 'cancelled', result: shutdown ? INTERRUPTED_RESULT : 'Cancelled: the turn was stopped before it ran.', isError: true, running });
      if (ended) this.deps.events.callChanged(ended);
      return ended ?? call;
    }
    this.deps.events.callChanged(running);
    const tool = this.deps.registry.get(call.name);
    const parsed = tool?.args.safeParse(running.args ?? {});
    let finished: ToolCallRecord | null;
    if (!tool || !parsed?.success) {
      const reason = !tool ? `The tool ${call.name} is no longer available` : `Invalid arguments after editing: ${parsed?.error?.message ?? ''}`;
      finished = await finishToolCall({ id: call.id, status: 'failed', result: reason, isError: true, running });
    } else {
      const own = this.deps.broker.startRunning(call.id, signal);
      const mounts = this.deps.readOnlyMounts;
      try {
        // One `execute_tool <name>` span (lib/telemetry), inside the turn's: the decision and who made it.
        const decided = call.decision ? { decision: call.decision.decision, decidedBy: call.decision.by.via } : {};
        const outcome = await inSpan({ kind: 'tool', name: call.name, callId: call.providerCallId, sessionId: this.deps.sessionId, ...decided }, async (span) => {
          const ran = await tool.run(parsed.data, {
            sessionId: this.deps.sessionId,
            callId: call.id,
            workspaceDir: this.deps.workspaceDir(),
            signal: own.signal,
            onOutput: (chunk) => this.deps.events.output(call.id, chunk),
            sight: this.deps.sight?.(),
            // Read when a tool asks (a sandboxed run): finding the skills walks their folders.
            get readOnlyMounts() {
              return mounts?.();
            },
          });
          span.tool({ status: ran.cancelled ? 'cancelled' : ran.isError ? 'failed' : 'succeeded', isError: ran.isError });
          return ran;
        });
        if (outcome.images?.length && !outcome.isError) this.shownImages.set(call.id, { turnId: call.turnId, images: outcome.images });
        // Stopped alone (its Stop button), with the turn (Stop reply) or by a shutdown.
        const status = outcome.cancelled ? (signal.aborted && stopKind() === 'shutdown' ? 'interrupted' : 'cancelled') : outcome.isError ? 'failed' : 'succeeded';
        // Content from outside marks the session before the model can read it (§20).
        const origin = resultOrigin(tool, outcome);
        // The result exists only here until it is recorded: a database outage or a full disk is waited out (issue 73 §3–4).
        finished = await writeThroughFault(`[tools ${this.deps.sessionId}] the result of ${call.name}`, signal, async () => {
          const resultSource = origin ? untrustedLabel(origin, await readTrust()) : null;
          if (resultSource) await markSessionUntrusted(this.deps.sessionId, resultSource);
          return finishToolCall({ id: call.id, status, result: outcome.content, isError: outcome.isError, exitCode: outcome.exitCode ?? null, droppedBytes: outcome.droppedBytes ?? 0, resultSource, running });
        });
      } catch (error) {
        if (storeFault(error)) throw error; // the wait was stopped: the call stays running, for the restart to mark
        finished = await finishToolCall({ id: call.id, status: 'failed', result: `The tool failed: ${errorText(error)}`, isError: true, running });
      } finally {
        own.done();
      }
    }
    const final = finished ?? (await getToolCall({ id: call.id })) ?? call;
    this.deps.events.callChanged(final);
    return final;
  }
}
