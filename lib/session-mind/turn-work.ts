// What one Internal Dialog turn is asked to do (the turn queue hands it to the mind; the turn runs it).
import { randomUUID } from 'node:crypto';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { AgentStepRecord, AgentTurnRecord } from '@/lib/store/tool-calls-repository';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import type { MindContext } from './mind-context';

export interface TurnWork {
  turnId: string;
  spontaneous: boolean;
  /** The user messages this turn answers (several when they queued up during the last turn). */
  userMessages: MessageRecord[];
  /** The shared state taken at the start of the turn. */
  taken: ReturnType<MindContext['memory']['takeForTurn']>;
  /** A turn that acted before a restart: continued from its stored steps. */
  resume?: { turn: AgentTurnRecord; steps: AgentStepRecord[] };
  /** A task's step (lib/tasks): its brief, tools and budget hooks. */
  task?: TaskTurn;
  /** The W3C trace context the first of `userMessages` came with (a message typed in another process). */
  traceparent?: string;
}

export function newTurnId(): string {
  return randomUUID();
}
