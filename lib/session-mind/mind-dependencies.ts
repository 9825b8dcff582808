// What a session's mind is given by the orchestrator (shared by every session), and the defaults
// the app uses for what a test does not pass.
import { createBackend } from '@/lib/backends/create-backend';
import type { ModelBackend } from '@/lib/backends/model-backend';
import { defaultRetryPolicy, type RetryPolicy } from '@/lib/backends/retry-policy';
import type { Clock } from '@/lib/clock/clock';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { AgentMcpEndpoint } from '@/lib/agent/agent-mcp-endpoint';
import { ApprovalBroker } from '@/lib/tools/approval-broker';
import { appMcpAuth } from '@/lib/mcp/mcp-auth';
import type { ElicitationBroker } from '@/lib/mcp/elicitation';
import { McpPool } from '@/lib/mcp/mcp-pool';
import { CycleRuns } from '@/lib/agent/cycle-runs';
import { TurnRuns } from '@/lib/agent/turn-runs';
import type { ExecutionEngine } from '@/lib/engine/execution-engine';
import type { EventBus } from '@/lib/mind/events';
import { ForegroundGate } from './foreground-gate';
import { TokenCalibration } from '@/lib/mind/token-budget';
import { BrowserPool } from '@/lib/browser/browser-pool';
import { appPaths, readEnv } from '@/lib/config/env';
import path from 'node:path';
import { FALLBACK_COOL_DOWN_MS } from '@/lib/mind/failover';

function appBrowser(): BrowserPool {
  const env = readEnv();
  return new BrowserPool({ executablePath: env.AGENTCSD_CHROMIUM_PATH, browserDir: path.join(appPaths().dataDir, 'browser'), maxContexts: env.AGENTCSD_BROWSER_SESSIONS, idleMs: env.AGENTCSD_BROWSER_IDLE_S * 1000 });
}

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
  /** After a layer failed over to a fallback, how long its first model rests (lib/mind/failover.ts). */
  fallbackCoolDownMs: number;
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
  /** The agent's Chromium (issue 45): started with the first session that browses. */
  browser: BrowserPool;
}


/** What the orchestrator's caller may pass (tests); the rest is made here. */
export type MindDependencyOptions = Partial<Omit<MindDependencies, 'bus' | 'cycles' | 'turnRuns'>>;

export function mindDependencies(
  options: MindDependencyOptions,
  shared: { bus: EventBus; clock: Clock; engine: ExecutionEngine; elicitations: () => ElicitationBroker },
): MindDependencies {
  const { bus, clock, engine, elicitations } = shared;
  return {
    cycles: new CycleRuns(engine),
    turnRuns: new TurnRuns(engine),
    bus,
    clock,
    random: options.random ?? Math.random,
    retryPolicy: options.retryPolicy ?? defaultRetryPolicy,
    createBackend: options.createBackend ?? createBackend,
    memoryLimit: options.memoryLimit ?? 1000,
    calibration: options.calibration ?? new TokenCalibration(),
    stallTimeoutMs: options.stallTimeoutMs ?? 120_000,
    fallbackCoolDownMs: options.fallbackCoolDownMs ?? FALLBACK_COOL_DOWN_MS,
    foreground: options.foreground ?? new ForegroundGate(clock),
    approvals: options.approvals ?? new ApprovalBroker(),
    toolServer: options.toolServer ?? { current: null },
    browser: options.browser ?? appBrowser(),
    mcp:
      options.mcp ??
      new McpPool({
        auth: appMcpAuth(),
        elicit: (request) => elicitations().ask(request),
        callEnded: (server, sessionId) => elicitations().cancelFor(server, sessionId),
      }),
  };
}
