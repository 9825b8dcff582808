// A channel held by another process of the cluster (issues 28 and 47): a real worker started on
// the test's folders until it holds the channel's lease, then this process joined with no room for
// sessions of its own (capacity 0), so the worker runs them until it dies.
import { expect } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { startWorker, type WorkerProcess } from './worker-process';

/** The process holding the channel's lease now. */
export async function channelHolder(channelId: string): Promise<string | undefined> {
  return (await (await getDb()).$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM channel_leases WHERE channel_id = $1', channelId))[0]?.owner;
}

export async function workerHoldingChannel(input: { channelId: string; databaseUrl: string; dirs: { dataDir: string; personasDir: string } }): Promise<{ worker: WorkerProcess; here: Orchestrator }> {
  const worker = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-b', AGENTCSD_DATA_DIR: input.dirs.dataDir, AGENTCSD_PERSONAS_DIR: input.dirs.personasDir });
  await expect.poll(() => channelHolder(input.channelId), { timeout: 20_000 }).toBe('worker-b');
  const here = new Orchestrator({ cluster: new Cluster({ url: input.databaseUrl, owner: 'process-a', capacity: 0 }), channels: true });
  await here.start();
  return { worker, here };
}
