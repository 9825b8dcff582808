// Which engine runs the agent's work (ARCHITECTURE §14): in-memory by default (`npm run dev` stays
// one process), DBOS on PostgreSQL when `AGENTCSD_ENGINE=dbos` and `AGENTCSD_DATABASE_URL` name
// one. The durable engine must learn every workflow before it launches, so the caller defines
// (constructs the orchestrator) first, then calls `launch`.
import os from 'node:os';
import type { Clock } from '@/lib/clock/clock';
import type { Env } from '@/lib/config/env';
import type { ExecutionEngine } from './execution-engine';
import { appVersion } from './app-version';
import { InMemoryEngine } from './in-memory-engine';

export interface ConfiguredEngine {
  engine: ExecutionEngine;
  /** What the start-up line says. */
  description: string;
  /** Connects and recovers the runs this process left pending (a no-op in memory). */
  launch(): Promise<void>;
}

/** This process's name on the shared database: the same across its restarts, different for processes running at once. */
export function processName(env: Pick<Env, 'AGENTCSD_EXECUTOR_ID' | 'PORT'>): string {
  return env.AGENTCSD_EXECUTOR_ID ?? `agentcsd-${os.hostname()}-${env.PORT}`;
}

/**
 * `clustered`: the process joins a cluster on the same PostgreSQL (server.ts does): its runs follow
 * their sessions' leases. DBOS is loaded only when it is the engine (~23 MiB an in-memory app does
 * not need).
 */
export async function createEngine(env: Pick<Env, 'AGENTCSD_ENGINE' | 'AGENTCSD_DATABASE_URL' | 'AGENTCSD_EXECUTOR_ID' | 'AGENTCSD_APP_VERSION' | 'PORT'>, clock: Clock, options: { clustered?: boolean } = {}): Promise<ConfiguredEngine> {
  if (env.AGENTCSD_ENGINE === 'memory') {
    return { engine: new InMemoryEngine(clock), description: 'in-memory', launch: async () => undefined };
  }
  if (!env.AGENTCSD_DATABASE_URL) throw new Error('AGENTCSD_ENGINE=dbos needs AGENTCSD_DATABASE_URL=postgres://… (see docs/cluster.md, "More than one process")');
  const executorId = processName(env);
  const { DbosEngine } = await import('./dbos-engine');
  // One version per release, however this checkout is started (issue 60): runs of it recover anywhere it runs.
  const applicationVersion = appVersion({ AGENTCSD_APP_VERSION: env.AGENTCSD_APP_VERSION });
  const engine = new DbosEngine({ systemDatabaseUrl: env.AGENTCSD_DATABASE_URL, executorId, clock, clustered: options.clustered === true, applicationVersion });
  return {
    engine,
    description: `DBOS on ${redactUrl(env.AGENTCSD_DATABASE_URL)} as ${executorId}, version ${applicationVersion}`,
    launch: () => engine.launch(),
  };
}

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unreadable URL';
  }
}
