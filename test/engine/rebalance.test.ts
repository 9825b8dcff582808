// Sessions spread over real processes (issue 31, requirements 2 and 4): this test's process holds
// 24 active sessions alone; a real `server.ts --worker` (its own data folder: another machine, as
// far as files go) joins and takes its half, then a second one its third — handed over at quiet
// moments, no process ever above ⌈24/3⌉+2, each session's workspace and persona snapshot following
// it; messages sent through this process are answered once wherever the session runs. The second
// worker killed with kill -9: its sessions spread over both survivors, half each. The first
// stopped with Ctrl-C (SIGTERM): its sessions come back at once, with the files made there.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { mindScript } from '@/test/fakes/mind-script';
import { useClusterFixture } from '@/test/support/cluster-fixture';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startWorker } from '@/test/support/worker-process';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const cluster = useClusterFixture({ script: mindScript, chunkDelayMs: 2 });
const layer = () => cluster.layer();

async function owners(ids: string[]): Promise<Record<string, string>> {
  const rows = await (await getDb()).$queryRawUnsafe<{ session_id: string; owner: string }[]>('SELECT session_id, owner FROM session_leases WHERE session_id = ANY($1::text[])', ids);
  return Object.fromEntries(rows.map((row) => [row.session_id, row.owner]));
}

const conversation = async (sessionId: string) =>
  (await getDb()).message.findMany({ where: { sessionId, tag: { in: ['ED_user', 'ED_agent'] } }, orderBy: { id: 'asc' }, select: { tag: true, content: true } });

async function answeredOnce(ids: string[], text: string) {
  for (const id of ids) await cluster.here!.sendUserMessage(id, { text: `${text} ${id.slice(0, 4)}` });
  for (const id of ids) {
    await vi.waitFor(async () => expect(await conversation(id)).toContainEqual({ tag: 'ED_agent', content: `You said: ${text} ${id.slice(0, 4)}` }), { timeout: 30_000, interval: 200 });
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const id of ids) expect((await conversation(id)).filter((message) => message.content.endsWith(`${text} ${id.slice(0, 4)}`))).toHaveLength(2);
}

const workspaceFile = (dataDir: string, sessionId: string, name: string) => path.join(dataDir, 'workspaces', sessionId, name);
const held = async (ids: string[]) => {
  const counts: Record<string, number> = {};
  for (const owner of Object.values(await owners(ids))) counts[owner] = (counts[owner] ?? 0) + 1;
  return counts;
};
const heldBy = async (ids: string[], owner: string) => Object.entries(await owners(ids)).filter(([, holder]) => holder === owner).map(([id]) => id);

describe('sessions spread over real processes', () => {
  it('workers joining take their share with the files; kill -9 spreads one’s sessions over both survivors; Ctrl-C gives them back at once; every message answered once', async () => {
    const here = (cluster.here = new Orchestrator({ cluster: new Cluster({ url: cluster.database.url, owner: 'process-a' }) }));
    await here.start();
    const ids: string[] = [];
    for (let index = 0; index < 24; index++) ids.push((await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } })).id);
    expect(await held(ids)).toEqual({ 'process-a': 24 });
    // Each session's agent made a file here.
    for (const id of ids) {
      fs.mkdirSync(path.dirname(workspaceFile(dirs.dataDir, id, 'made-here.txt')), { recursive: true });
      fs.writeFileSync(workspaceFile(dirs.dataDir, id, 'made-here.txt'), `made for ${id}\n`);
    }

    // A worker joins, on its own data folder: it takes half, each session with its workspace and persona.
    const dataB = path.join(dirs.root, 'worker-b-data');
    const b = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-b', AGENTCSD_DATA_DIR: dataB, AGENTCSD_PERSONAS_DIR: dirs.personasDir });
    cluster.workers.push(b);
    await vi.waitFor(async () => expect(await held(ids)).toEqual({ 'process-a': 12, 'worker-b': 12 }), { timeout: 10_000, interval: 200 });
    const onB = await heldBy(ids, 'worker-b');
    for (const id of onB) {
      await vi.waitFor(
        () => {
          expect(fs.readFileSync(workspaceFile(dataB, id, 'made-here.txt'), 'utf8')).toBe(`made for ${id}\n`);
          expect(fs.readFileSync(path.join(dataB, 'logs', id, 'persona_core_snapshot.md'), 'utf8')).toBe('# Tester\n');
        },
        { timeout: 10_000, interval: 200 },
      );
      expect(here.mindState(id)).toBeNull();
    }

    // A second joins: a third each, taken from both (sticky: nothing else moves), never above 10.
    const c = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-c', AGENTCSD_DATA_DIR: path.join(dirs.root, 'worker-c-data'), AGENTCSD_PERSONAS_DIR: dirs.personasDir });
    cluster.workers.push(c);
    await vi.waitFor(async () => expect(await held(ids)).toEqual({ 'process-a': 8, 'worker-b': 8, 'worker-c': 8 }), { timeout: 10_000, interval: 200 });
    expect((await heldBy(ids, 'worker-b')).every((id) => onB.includes(id))).toBe(true);
    await answeredOnce(ids, 'Wherever you are');

    // kill -9: after its lease, its eight go four to each survivor.
    await c.kill();
    await vi.waitFor(async () => expect(await held(ids)).toEqual({ 'process-a': 12, 'worker-b': 12 }), { timeout: 15_000, interval: 200 });
    const fromC = await (await getDb()).$queryRawUnsafe<{ to_owner: string; n: number }[]>(
      `SELECT to_owner, COUNT(*)::int AS n FROM session_moves WHERE from_owner = 'worker-c' AND reason = 'dead' GROUP BY to_owner ORDER BY to_owner`,
    );
    expect(fromC).toEqual([{ to_owner: 'process-a', n: 4 }, { to_owner: 'worker-b', n: 4 }]);

    // Its agent makes a file on worker b; Ctrl-C: b's sessions come back here at once, with it.
    const stillOnB = await heldBy(ids, 'worker-b');
    for (const id of stillOnB) {
      // The ones it took from worker-c: their minds running there (a call reaches each), with their files.
      await here.eventPosition(id);
      await vi.waitFor(() => expect(fs.existsSync(workspaceFile(dataB, id, 'made-here.txt'))).toBe(true), { timeout: 10_000, interval: 200 });
      fs.writeFileSync(workspaceFile(dataB, id, 'made-there.txt'), `there ${id}\n`);
    }
    const exited = new Promise((resolve) => b.child.once('exit', resolve));
    b.child.kill('SIGTERM');
    await exited;
    await vi.waitFor(async () => expect(await held(ids)).toEqual({ 'process-a': 24 }), { timeout: 10_000, interval: 200 });
    const fromB = await (await getDb()).$queryRawUnsafe<{ reason: string; n: number }[]>(`SELECT reason, COUNT(*)::int AS n FROM session_moves WHERE from_owner = 'worker-b' GROUP BY reason ORDER BY reason`);
    expect(fromB).toEqual([{ reason: 'left', n: 12 }, { reason: 'rebalance', n: 4 }]); // four went to worker-c when it joined
    for (const id of stillOnB) {
      await vi.waitFor(() => expect(here.mindState(id)).not.toBeNull(), { timeout: 10_000, interval: 200 });
      expect(fs.readFileSync(workspaceFile(dirs.dataDir, id, 'made-there.txt'), 'utf8')).toBe(`there ${id}\n`);
    }
    await answeredOnce(ids, 'Back home');
    // One mind at a time all along: no Subconscious cycle written twice.
    for (const id of ids) {
      const cycles = await (await getDb()).message.findMany({ where: { sessionId: id, tag: 'S_loud' }, select: { cycleNumber: true } });
      expect(new Set(cycles.map((cycle) => cycle.cycleNumber)).size).toBe(cycles.length);
    }
  }, 180_000);
});
