// Builds a session's toolbox for the turn about to run: the tools its settings allow, on a
// backend that can call them, with its rules, and every change announced on the event bus.
import type { SessionRecord } from '@/lib/store/sessions-repository';
import { toolCallJson } from '@/lib/store/tool-calls-repository';
import { listRulesFor } from '@/lib/store/tool-rules-repository';
import type { EventBus } from '@/lib/orchestrator/events';
import type { ApprovalBroker } from '@/lib/tools/approval-broker';
import { ToolRegistry, builtinToolNames } from '@/lib/tools/tool-registry';
import { ensureWorkspace } from '@/lib/tools/workspace';
import { SessionToolbox } from './session-toolbox';

/** Backends whose tool calls the app can receive today. */
const TOOL_BACKENDS = new Set(['anthropic', 'openai_compatible']);

export function createMindToolbox(input: { session: SessionRecord; bus: EventBus; broker: ApprovalBroker }): SessionToolbox | null {
  const { session, bus } = input;
  if (!TOOL_BACKENDS.has(session.models.c_model.backend)) return null;
  const registry = ToolRegistry.forSession(session.params.tools ?? builtinToolNames);
  if (registry.size === 0) return null;
  return new SessionToolbox({
    sessionId: session.id,
    registry,
    broker: input.broker,
    events: {
      callChanged: (call) => bus.emit('tool-call', session.id, { call: toolCallJson(call) }),
      output: (callId, chunk) => bus.emit('tool-output', session.id, { callId, ...chunk }),
    },
    loadRules: () => listRulesFor({ sessionId: session.id, personaName: session.personaName }),
    workspaceDir: () => ensureWorkspace(session.id),
  });
}
