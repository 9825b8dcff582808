// What schedules and webhooks (lib/triggers) may do to the app, wired to the orchestrator's own
// calls: a scheduled message is the page's send-message (it wakes a resting mind), a scheduled
// task is a task submitted like the page's, with the slot's id and trace.
import type { Clock } from '@/lib/clock/clock';
import type { EventBus } from '@/lib/mind/events';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { TaskRecord } from '@/lib/store/tasks-repository';
import type { SubmitTaskInput } from '@/lib/store/task-types';
import type { TriggerHost } from '@/lib/triggers/scheduler';

/** The orchestrator's calls the triggers use (its own type would make an import circle). */
export interface TriggerHostSource {
  bus: EventBus;
  sendUserMessage(id: string, input: { text: string }, options?: { untrustedSource?: string }): Promise<MessageRecord>;
  tasks: { submit(sessionId: string, input: SubmitTaskInput, ids?: { id: string; traceId: string }): Promise<TaskRecord> };
}

export function triggerHost(orchestrator: TriggerHostSource, clock: Clock): TriggerHost {
  return {
    bus: orchestrator.bus,
    clock,
    sendMessage: (sessionId, text, untrustedSource) => orchestrator.sendUserMessage(sessionId, { text }, { untrustedSource }),
    startTask: (sessionId, input, ids) => orchestrator.tasks.submit(sessionId, input, ids),
  };
}
