// Sessions spread over real processes (issue 31, requirements 2 and 4): this test's process holds
// four active sessions alone; a real `server.ts --worker` (its own data folder: another machine, as
// far as files go) joins and takes its share, handed over at quiet moments; each session's
// workspace and persona snapshot follow it; messages sent through this process are answered once
// wherever the session runs; the worker stopped with Ctrl-C (SIGTERM) gives its sessions back at
// once — with the files it made — and they are answered here.
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
    await vi.waitFor(async () => expect(await conversation(id)).toContainEqual({ tag: 'ED_agent', content: `You said: ${text} ${id.slice(0, 4)}` }), { timeout: 20_000, interval: 200 });
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const id of ids) expect((await conversation(id)).filter((message) => message.content.endsWith(`${text} ${id.slice(0, 4)}`))).toHaveLength(2);
}

const workspaceFile = (dataDir: string, sessionId: string, name: string) => path.join(dataDir, 'workspaces', sessionId, name);

describe('sessions spread over real processes', () => {
  it('a worker joining takes its share with the files; Ctrl-C gives them back at once; every message answered once', async () => {
    const here = (cluster.here = new Orchestrator({ cluster: new Cluster({ url: cluster.database.url, owner: 'process-a' }) }));
    await here.start();
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push((await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } })).id);
    expect(Object.values(await owners(ids))).toEqual(['process-a', 'process-a', 'process-a', 'process-a']);
    // Each session's agent made a file here.
    for (const id of ids) {
      fs.mkdirSync(path.dirname(workspaceFile(dirs.dataDir, id, 'made-here.txt')), { recursive: true });
      fs.writeFileSync(workspaceFile(dirs.dataDir, id, 'made-here.txt'), `made for ${id}\n`);
    }

    // The worker joins, on its own data folder: it takes two, each with its workspace and persona.
    const workerData = path.join(dirs.root, 'worker-data');
    const worker = (cluster.worker = await startWorker({ AGENTCSD_EXECUTOR_ID: 'worker-b', AGENTCSD_DATA_DIR: workerData, AGENTCSD_PERSONAS_DIR: dirs.personasDir }));
    await vi.waitFor(async () => expect(Object.values(await owners(ids)).filter((owner) => owner === 'worker-b')).toHaveLength(2), { timeout: 10_000, interval: 200 });
    const moved = Object.entries(await owners(ids)).filter(([, owner]) => owner === 'worker-b').map(([id]) => id);
    for (const id of moved) {
      await vi.waitFor(() => expect(fs.readFileSync(workspaceFile(workerData, id, 'made-here.txt'), 'utf8')).toBe(`made for ${id}\n`), { timeout: 10_000, interval: 200 });
      expect(fs.readFileSync(path.join(workerData, 'logs', id, 'persona_core_snapshot.md'), 'utf8')).toBe('# Tester\n');
      expect(here.mindState(id)).toBeNull();
    }
    await answeredOnce(ids, 'Wherever you are');

    // Its agent makes a file there; Ctrl-C: the worker's sessions come back here at once, with it.
    for (const id of moved) fs.writeFileSync(workspaceFile(workerData, id, 'made-there.txt'), `there ${id}\n`);
    const exited = new Promise((resolve) => worker.child.once('exit', resolve));
    worker.child.kill('SIGTERM');
    await exited;
    await vi.waitFor(async () => expect(Object.values(await owners(ids))).toEqual(['process-a', 'process-a', 'process-a', 'process-a']), { timeout: 10_000, interval: 200 });
    const back = await (await getDb()).$queryRawUnsafe<{ reason: string; n: number }[]>(`SELECT reason, COUNT(*)::int AS n FROM session_moves WHERE from_owner = 'worker-b' GROUP BY reason`);
    expect(back).toEqual([{ reason: 'left', n: 2 }]);
    for (const id of moved) {
      await vi.waitFor(() => expect(here.mindState(id)).not.toBeNull(), { timeout: 10_000, interval: 200 });
      expect(fs.readFileSync(workspaceFile(dirs.dataDir, id, 'made-there.txt'), 'utf8')).toBe(`there ${id}\n`);
    }
    await answeredOnce(ids, 'Back home');
    // One mind at a time all along: no Subconscious cycle written twice.
    for (const id of ids) {
      const cycles = await (await getDb()).message.findMany({ where: { sessionId: id, tag: 'S_loud' }, select: { cycleNumber: true } });
      expect(new Set(cycles.map((cycle) => cycle.cycleNumber)).size).toBe(cycles.length);
    }
  }, 120_000);
});
