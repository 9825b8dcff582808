// The Cluster view's route (issue 31, ARCHITECTURE §18). On SQLite the app is one process: the
// view says so. On PostgreSQL this process is a member: it lists itself with its capacity and the
// session it holds, and the move that placed the session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as clusterRoute from '@/app/api/cluster/route';
import { Cluster } from '@/lib/engine/cluster';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
const url = () => process.env.AGENTCSD_DATABASE_URL;

beforeAll(async () => {
  const cluster = url() ? new Cluster({ url: url()!, owner: 'route-member', capacity: 2 }) : undefined;
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud>' }), cluster });
});
afterAll(async () => {
  await stopOrchestrator();
});

const view = async () => (await clusterRoute.GET(new Request('http://127.0.0.1:3000/api/cluster'), { params: Promise.resolve({}) })).json();

describe('GET /api/cluster', () => {
  it('alone, says every mind runs here; in a cluster, lists the members, their load and the moves', async () => {
    if (!url()) {
      expect(await view()).toEqual({ clustered: false, members: [], moves: [] });
      return;
    }
    const { getOrchestrator } = await import('@/lib/orchestrator/orchestrator');
    const session = await getOrchestrator().createSession({ persona: 'tester' });
    const json = (await view()) as { clustered: boolean; members: { name: string; capacity: number; sessions: number }[]; moves: { session_id: string; to: string; reason: string }[] };
    expect(json.clustered).toBe(true);
    expect(json.members).toEqual([expect.objectContaining({ name: 'route-member', capacity: 2, sessions: 1 })]);
    // Each member's version (issue 60): this checkout's, as every process started from it computes it.
    const { appVersion } = await import('@/lib/engine/app-version');
    expect(json).toMatchObject({ version: appVersion(), members: [{ version: appVersion() }], waiting_runs: [] });
    expect(json.moves).toContainEqual(expect.objectContaining({ session_id: session.id, to: 'route-member', reason: 'new' }));
  });
});
