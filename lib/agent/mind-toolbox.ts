// Builds a session's toolbox for the turn about to run: the tools its settings allow, on a
// backend that can call them, with its rules, and every change announced on the event bus.
import type { SessionRecord } from '@/lib/store/sessions-repository';
import { toolCallJson, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { currentRulesVersion, listRulesFor, type ToolRuleRecord } from '@/lib/store/tool-rules-repository';
import type { EventBus } from '@/lib/mind/events';
import { appendToolCallLog } from '@/lib/store/session-logs';
import type { ApprovalBroker } from '@/lib/tools/approval-broker';
import type { LoadedTools } from './tool-search';
import { ToolRegistry } from './tool-registry';
import type { Tool } from '@/lib/tools/tool-types';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import { imageSight } from '@/lib/mind/image-sight';
import { ensureWorkspace } from '@/lib/tools/workspace';
import type { AgentMcpEndpoint } from './agent-mcp-endpoint';
import { SessionToolbox } from './session-toolbox';
import { conversationOf, offerTool } from '@/lib/people/rights';
import { logFailure } from '@/lib/store/store-faults';

/** Backends whose tool calls come back to the app's step loop. */
const NATIVE_TOOL_BACKENDS = new Set(['anthropic', 'openai_compatible']);

/** One line the Subconscious reads of a finished call: what was done, how it ended, what came back. */
export function toolActivityLine(call: ToolCallRecord): string {
  const args = call.args ?? {};
  const subject = String(args.command ?? args.code ?? args.path ?? args.pattern ?? JSON.stringify(args)).replace(/\s+/g, ' ');
  // Untrusted content lives in the turn that read it (issue 44): the Subconscious reads where it came from.
  const result = call.resultSource ? `[result withheld: from ${call.resultSource}]` : (call.result ?? '').replace(/\s+/g, ' ').trim();
  const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}…` : text);
  return `${call.name}(${clip(subject, 80)}) → ${call.status}${call.exitCode !== null ? ` (exit ${call.exitCode})` : ''}${result ? `: ${clip(result, 160)}` : ''}`;
}

const FINAL = new Set(['denied', 'expired', 'succeeded', 'failed', 'cancelled', 'interrupted']);

/** The session's rules, read again only after a rule changed in this process. */
function rulesReader(session: SessionRecord) {
  let cached: { version: number; rules: Promise<ToolRuleRecord[]> } | null = null;
  return () => {
    const version = currentRulesVersion();
    if (!cached || cached.version !== version) cached = { version, rules: listRulesFor({ sessionId: session.id, personaName: session.personaName }) };
    return cached.rules;
  };
}

export async function createMindToolbox(input: {
  session: SessionRecord;
  bus: EventBus;
  broker: ApprovalBroker;
  /** The app's MCP endpoint: the Claude Code CLI gets the tools there (no endpoint, no tools). */
  toolServer?: AgentMcpEndpoint | null;
  /** A task's step: only the task's allowed tools, then its own (update_plan, finish_task, …). */
  task?: TaskTurn;
  /** The ready MCP servers' tools (lib/mcp/mcp-pool.ts). */
  mcpTools?: readonly Tool[];
  /** Tools configured on the session's capability graph (tool.http). */
  capabilityTools?: readonly Tool[];
  /** Each call that reached its final state (the Subconscious's next input). */
  onFinished?: (call: ToolCallRecord) => void;
  /** Tool search: the session's loaded tools, and the budget above which MCP tools are searched. */
  search?: { loaded: LoadedTools; budgetTokens: number };
  /** Folders bound read-only into the sandbox (the session's skills at /skills/<name>). */
  readOnlyMounts?: () => { host: string; inside: string }[];
}): Promise<SessionToolbox | null> {
  const { session, bus } = input;
  const backend = session.models.c_model.backend;
  if (!NATIVE_TOOL_BACKENDS.has(backend) && !(backend === 'claude_code_cli' && input.toolServer)) return null;
  const sessionTools = ToolRegistry.forSession({ builtins: session.params.tools, mcpServers: session.params.mcp_servers }, input.mcpTools, input.capabilityTools, input.search);
  const task = input.task;
  const allowed = task ? sessionTools.narrowed(task.allowedTools, task.taskTools) : sessionTools;
  // The model is offered only what the conversation's people may use (the rights authority, issue 58).
  const conversation = await conversationOf(session.id);
  const refused = new Map<string, string>();
  const registry = allowed.offered((tool) => {
    const answer = offerTool(conversation, tool.definition.name, tool.traits);
    if (answer.verdict === 'refuse') refused.set(tool.definition.name, answer.reason);
    return answer.verdict === 'allow';
  });
  if (registry.size === 0) return null;
  return new SessionToolbox({
    sessionId: session.id,
    registry,
    conversation,
    refused,
    broker: input.broker,
    events: {
      callChanged: (call) => {
        task?.onCallChanged(call);
        const json = toolCallJson(call);
        bus.emit('tool-call', session.id, { call: json });
        if (!FINAL.has(call.status)) return;
        try {
          appendToolCallLog({ sessionId: session.id, call: json });
        } catch (error) {
          logFailure(`[tools ${session.id}] tool_calls.jsonl append failed (the database has the call)`, error);
        }
        input.onFinished?.(call);
      },
      output: (callId, chunk) => bus.emit('tool-output', session.id, { callId, ...chunk }),
    },
    loadRules: rulesReader(session),
    ...(task && { task: { taskId: task.taskId, traceId: task.traceId } }),
    workspaceDir: () => ensureWorkspace(session.id),
    sight: () => imageSight(session.models.c_model),
    ...(input.readOnlyMounts && { readOnlyMounts: input.readOnlyMounts }),
  });
}
