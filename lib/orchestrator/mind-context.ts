// What a cycle or a turn needs from the mind that runs it: the session's current settings, its
// memory, and one way to call a model (which records the call).
import type { AgentMcpEndpoint } from '@/lib/agent/agent-mcp-endpoint';
import type { SessionToolbox } from '@/lib/agent/session-toolbox';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import type { BackendRequest } from '@/lib/backends/model-backend';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { CallLayer } from '@/lib/store/mind-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { MindMemory } from './mind-memory';
import type { ModelCallResult } from './model-call';

export interface MindContext {
  readonly sessionId: string;
  readonly personaCore: string;
  /** agent.core's instructions from the session's capability graph (null: none). */
  readonly instructions: string | null;
  readonly memory: MindMemory;
  session(): SessionRecord;
  /** The model's token calibration factor (reported / estimated). */
  calibration(model: string): number;
  /** A cycle waits here while a reply runs in this process, within its allowance (foreground-gate.ts). */
  yieldToReplies(): Promise<void>;
  /** The Internal Dialog's tools (a task's step: narrowed to the task's, plus its own), or null when the backend has none. */
  toolbox(task?: TaskTurn): SessionToolbox | null;
  /** The app's MCP endpoint (a backend with its own tool loop reaches the tools there), once listening. */
  toolServer(): AgentMcpEndpoint | null;
  /** Calls the layer's backend (retries included), records the call in llm_calls, reports usage. */
  callModel(input: { layer: CallLayer; config: LayerModelConfig; request: BackendRequest; signal: AbortSignal; onText?: (text: string) => void; traceId?: string }): Promise<ModelCallResult>;
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
    console.error(`[mind ${sessionId}] JSONL append failed`, error);
  }
}
