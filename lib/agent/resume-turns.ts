// Turns that acted before a restart: a card still waiting, calls decided or interrupted while
// the app was down. They are continued — first, before anything new — from their stored steps.
import type { MessageRecord } from '@/lib/store/messages-repository';
import { listOpenAgentTurns, loadAgentSteps, type AgentStepRecord, type AgentTurnRecord } from '@/lib/store/tool-calls-repository';

export interface ResumableTurn {
  resume: { turn: AgentTurnRecord; steps: AgentStepRecord[] };
  /** The unanswered user messages the turn answers. */
  userMessages: MessageRecord[];
}

export async function loadResumableTurns(input: { sessionId: string; unanswered: MessageRecord[] }): Promise<ResumableTurn[]> {
  const turns = await listOpenAgentTurns({ sessionId: input.sessionId });
  const resumable: ResumableTurn[] = [];
  for (const turn of turns) {
    if (turn.taskId) continue; // a task's step: its task continues it (lib/tasks)
    const steps = await loadAgentSteps({ sessionId: input.sessionId, turnId: turn.turnId });
    const answering = new Set(turn.answering);
    resumable.push({ resume: { turn, steps }, userMessages: input.unanswered.filter((message) => answering.has(message.id)) });
  }
  return resumable;
}
