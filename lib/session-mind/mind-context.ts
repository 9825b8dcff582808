// What a cycle or a turn needs from the mind that runs it: the session's current settings, its
// memory, and one way to call a model (which records the call).
import type { Skill } from '@/lib/skills/skill-files';
import type { AgentMcpEndpoint } from '@/lib/agent/agent-mcp-endpoint';
import type { SessionToolbox } from '@/lib/agent/session-toolbox';
import type { ToolCallRecord } from '@/lib/store/tool-calls-repository';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import type { MindMemory } from './mind-memory';
import type { MindModelAccess } from '@/lib/mind/model-access';
import { logFailure } from '@/lib/store/store-faults';

export interface MindContext extends MindModelAccess {
  readonly personaCore: string;
  /** agent.core's instructions from the session's capability graph (null: none). */
  readonly instructions: string | null;
  /** The skills the agent has now (read from disk each time: a changed skill is picked up). */
  skills(): Skill[];
  readonly memory: MindMemory;
  /** The model's token calibration factor (reported / estimated). */
  calibration(model: string): number;
  /** A cycle waits here while a reply runs in this process, within its allowance (foreground-gate.ts). */
  yieldToReplies(): Promise<void>;
  /** The Internal Dialog's tools (a task's step: narrowed to the task's, plus its own), or null when the backend has none. */
  /** The turn's toolbox; `onFinished` hears each of its calls that reached a final state. */
  toolbox(task?: TaskTurn, onFinished?: (call: ToolCallRecord) => void): Promise<SessionToolbox | null>;
  /** The app's MCP endpoint (a backend with its own tool loop reaches the tools there), once listening. */
  toolServer(): AgentMcpEndpoint | null;
}

/**
 * Lets pending I/O run before the next step. Prisma's queries over better-sqlite3 resolve in
 * microtasks only, so a cycle's recording, transaction, log appends and events would otherwise
 * run as one block of several milliseconds, holding back the reply tokens streaming beside it.
 */
export function yieldToIO(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Log appends come after the DB commit; a failed append is reported, never fatal (the DB holds it). */
export function appendLogsSafely(append: () => void, sessionId: string): void {
  try {
    append();
  } catch (error) {
    logFailure(`[mind ${sessionId}] JSONL append failed`, error);
  }
}
