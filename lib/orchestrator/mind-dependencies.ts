// What a session's mind is given by the orchestrator (shared by every session), and the error a
// message to a paused session gets.
import type { ModelBackend } from '@/lib/backends/model-backend';
import type { RetryPolicy } from '@/lib/backends/retry-policy';
import type { Clock } from '@/lib/clock/clock';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { AgentMcpEndpoint } from '@/lib/agent/agent-mcp-endpoint';
import type { ApprovalBroker } from '@/lib/tools/approval-broker';
import type { McpPool } from '@/lib/tools/mcp/mcp-pool';
import type { CycleRuns } from '@/lib/agent/cycle-runs';
import type { TurnRuns } from '@/lib/agent/turn-runs';
import type { EventBus } from '@/lib/mind/events';
import type { ForegroundGate } from './foreground-gate';
import type { TokenCalibration } from '@/lib/mind/token-budget';

export interface MindDependencies {
  bus: EventBus;
  clock: Clock;
  random: () => number;
  retryPolicy: RetryPolicy;
  createBackend: (config: LayerModelConfig) => ModelBackend;
  /** Entries of each history kept in memory (prompts take the newest that fit their budget). */
  memoryLimit: number;
  /** Per-model correction of local token estimates, shared by every session. */
  calibration: TokenCalibration;
  /** A model call that sends nothing for this long is abandoned (see model-call.ts). */
  stallTimeoutMs: number;
  /** Shared by every session: cycles wait while a reply runs (see foreground-gate.ts). */
  foreground: ForegroundGate;
  /** Wakes a step waiting for a person's decision on a tool call. */
  approvals: ApprovalBroker;
  /** The app's MCP endpoint for backends that run their own tool loop (the CLI); set once listening. */
  toolServer: { current: AgentMcpEndpoint | null };
  /** The user's MCP servers; their ready tools join each turn's registry. */
  mcp: McpPool;
  /** Runs each Subconscious cycle as one run of the execution engine. */
  cycles: CycleRuns;
  /** One engine run per conversation turn (lib/agent/turn-runs.ts). */
  turnRuns: TurnRuns;
}

