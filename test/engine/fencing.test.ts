// Fencing (issue 31, requirement 1), with a real `server.ts --worker` process: the worker holds a
// session and is SIGSTOPped while its reply is being generated, for longer than its lease; the
// session moves here (the next epoch) and is answered here; then SIGCONT — the worker's late write,
// carrying the old epoch, is refused, it stops that mind, and the reply exists once.
import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { mindScript } from '@/test/fakes/mind-script';
import { useClusterFixture } from '@/test/support/cluster-fixture';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startWorker } from '@/test/support/worker-process';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
// Every reply takes 3 s to its first token: long enough to stop the worker in the middle of one.
const cluster = useClusterFixture({ script: mindScript, firstDeltaDelayMs: 3_000 });
const layer = () => cluster.layer();

async function lease(sessionId: string) {
  const rows = await (await getDb()).$queryRawUnsafe<{ owner: string; epoch: bigint }[]>('SELECT owner, epoch FROM session_leases WHERE session_id = $1', sessionId);
  return rows[0] ? { owner: rows[0].owner, epoch: Number(rows[0].epoch) } : null;
}

const replies = async (sessionId: string) =>
  (await getDb()).message.findMany({ where: { sessionId, tag: { in: ['ED_user', 'ED_agent'] } }, orderBy: { id: 'asc' }, select: { tag: true, content: true } });

describe('a holder paused past its lease', () => {
  it('cannot commit when it wakes: the late write is refused, its mind stops, the reply exists once', async () => {
    const worker = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-b', AGENTCSD_DATA_DIR: dirs.dataDir, AGENTCSD_PERSONAS_DIR: dirs.personasDir });
    cluster.workers.push(worker);
    const here = (cluster.here = new Orchestrator({ cluster: new Cluster({ url: cluster.database.url, owner: 'process-a' }) }));
    // Made before this process joins: the worker takes it, and keeps it after (placement is sticky).
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await vi.waitFor(async () => expect((await lease(session.id))?.owner).toBe('worker-b'), { timeout: 20_000 });
    await here.start();
    const before = (await lease(session.id))!;

    await here.sendUserMessage(session.id, { text: 'Hello through the worker' });
    // The worker's Internal Dialog is waiting for its reply: the worker stops, as a GC pause or a laptop's sleep would.
    await vi.waitFor(() => expect(cluster.fake.requests.some((request) => request.lastUserText.includes('Hello through the worker') && !request.system.includes('You are the Subconscious'))).toBe(true), { timeout: 10_000, interval: 20 });
    worker.child.kill('SIGSTOP');

    // After its lease, the session moves here at the next epoch and is answered here.
    // (Generous: with the suite's other processes beside it, a round can be late; the outcome is what counts.)
    await vi.waitFor(async () => expect(await lease(session.id)).toEqual({ owner: 'process-a', epoch: before.epoch + 1 }), { timeout: 30_000, interval: 200 });
    await vi.waitFor(async () => expect(await replies(session.id)).toContainEqual({ tag: 'ED_agent', content: 'You said: Hello through the worker' }), { timeout: 20_000, interval: 200 });

    // It wakes: the reply it had in hand is refused, and it stops that mind.
    worker.child.kill('SIGCONT');
    await vi.waitFor(() => expect(worker.output()).toContain(`a late write for session ${session.id} was refused`), { timeout: 15_000, interval: 200 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await replies(session.id)).toEqual([
      { tag: 'ED_user', content: 'Hello through the worker' },
      { tag: 'ED_agent', content: 'You said: Hello through the worker' },
    ]);
    expect((await lease(session.id))?.owner).toBe('process-a');
    expect(here.mindState(session.id)).not.toBeNull();
    // No Subconscious cycle was written twice either.
    const cycles = await (await getDb()).message.findMany({ where: { sessionId: session.id, tag: 'S_loud' }, select: { cycleNumber: true } });
    expect(new Set(cycles.map((cycle) => cycle.cycleNumber)).size).toBe(cycles.length);
  }, 90_000);
});
