// What the channels (lib/channels) may do to the app, wired to the orchestrator's own calls: a
// chat's message is the page's send-message, a button the page's decision, /pause the page's
// Pause. Nothing here decides anything the page could not.
import type { ChannelHost } from '@/lib/channels/channel-types';
import { findSession } from '@/lib/store/sessions-repository';
import { listTasks } from '@/lib/store/tasks-repository';
import type { EventBus } from '@/lib/mind/events';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { Actor } from '@/lib/people/rights';
import type { ToolCallDecisionInput, ToolCallDecisionResult } from '@/lib/agent/tool-decisions';

/** The orchestrator's calls the channels use (its own type would make an import circle). */
export interface ChannelHostSource {
  bus: EventBus;
  sendUserMessage(id: string, input: { text: string; attachments?: { kind: 'file'; id: string }[] }, options?: { untrustedSource?: string }): Promise<MessageRecord>;
  decideToolCall(input: ToolCallDecisionInput, actor: Actor): Promise<ToolCallDecisionResult>;
  tasks: { resume(taskId: string, input: string): Promise<unknown> };
  pauseSession(id: string): Promise<SessionRecord>;
  resumeSession(id: string): Promise<SessionRecord>;
  stopTurn(id: string): Promise<boolean>;
  createSession(input: { persona: string; name?: string }, options?: { people?: readonly string[] }): Promise<SessionRecord>;
}

export function channelHost(orchestrator: ChannelHostSource): ChannelHost {
  return {
    bus: orchestrator.bus,
    sendUserMessage: (sessionId, text, options = {}) =>
      orchestrator.sendUserMessage(sessionId, { text, ...(options.fileIds?.length && { attachments: options.fileIds.map((id) => ({ kind: 'file' as const, id })) }) }, options.untrustedSource ? { untrustedSource: options.untrustedSource } : {}),
    decideToolCall: async (input, actor) => {
      const outcome = await orchestrator.decideToolCall(input, actor);
      return outcome.ok ? { ok: true } : { ok: false, code: outcome.code, message: outcome.message, ...(outcome.call && { status: outcome.call.status }) };
    },
    answerTask: async (sessionId, text) => {
      const [waiting] = (await listTasks({ sessionId, statuses: ['blocked'] })).filter((task) => task.blockedOn?.kind === 'question' || task.blockedOn?.kind === 'yield');
      if (!waiting) return false;
      await orchestrator.tasks.resume(waiting.id, text);
      return true;
    },
    pauseSession: async (sessionId) => void (await orchestrator.pauseSession(sessionId)),
    resumeSession: async (sessionId) => void (await orchestrator.resumeSession(sessionId)),
    stopTurn: (sessionId) => orchestrator.stopTurn(sessionId),
    createSession: (persona, people, name) => orchestrator.createSession({ persona, ...(name && { name }) }, { people }),
    findSession: (id) => findSession({ id }),
  };
}
