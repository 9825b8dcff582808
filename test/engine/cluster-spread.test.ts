// Sessions spread over the cluster (issue 31, requirements 1 and 2), members in this process on a
// real PostgreSQL, each a holder standing in for an orchestrator: three members hold 24 active
// sessions evenly; a fourth joining takes its share within 10 s, moving nothing else; it leaving
// spreads its sessions over all three; one frozen past its lease (a SIGSTOP, as far as the others
// can tell) has its sessions spread over the two left. Every move raises the lease's epoch, and a
// write carrying an older epoch is refused (the fencing token).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { Cluster, type ClusterBroadcast, type ClusterMember } from '@/lib/engine/cluster';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { closeDb, getDb } from '@/lib/store/db';
import { FencedWriteError, holdEpoch } from '@/lib/store/lease-fence';
import { insertTurn } from '@/lib/store/mind-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let database: TestPostgres;
const joined: Cluster[] = [];

class Holder implements ClusterMember {
  owned = new Set<string>();
  async handle(): Promise<unknown> {
    return null;
  }
  hear(_event: ClusterBroadcast): void {}
  async reconcile(owned: ReadonlySet<string>): Promise<void> {
    this.owned = new Set(owned);
  }
  async handOver(candidates: readonly string[], transfer: (ids: readonly string[]) => Promise<readonly string[]>): Promise<void> {
    await transfer(candidates);
  }
}

beforeAll(async () => {
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  await getDb();
}, 60_000);

afterAll(async () => {
  for (const member of joined) await member.leave().catch(() => undefined);
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

async function join(owner: string): Promise<Cluster> {
  const cluster = new Cluster({ url: database.url, owner, heartbeatMs: 200, leaseMs: 1_500, callTimeoutMs: 3_000 });
  await cluster.join(new Holder());
  joined.push(cluster);
  return cluster;
}

async function sql<Row = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

async function leases(): Promise<Map<string, string>> {
  const rows = await sql<{ session_id: string; owner: string }>(`SELECT session_id, owner FROM session_leases`);
  return new Map(rows.map((row) => [row.session_id, row.owner]));
}

async function load(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const owner of (await leases()).values()) counts[owner] = (counts[owner] ?? 0) + 1;
  return counts;
}

const newSession = async (status: 'active' | 'paused' = 'active') =>
  insertSession({ id: randomUUID(), name: 'spread', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status });

describe('sessions spread over the cluster', () => {
  it('three members hold 24 sessions evenly; a fourth takes its share and nothing else moves; leaving or frozen, a member’s sessions spread over the rest', async () => {
    for (let index = 0; index < 24; index++) await newSession();
    await join('spread-a');
    await join('spread-b');
    const c = await join('spread-c');
    await vi.waitFor(async () => expect(await load()).toEqual({ 'spread-a': 8, 'spread-b': 8, 'spread-c': 8 }), { timeout: 10_000, interval: 100 });

    // A fourth joins: within 10 s it holds its share, taken from the others and only that moved.
    const before = await leases();
    const d = await join('spread-d');
    await vi.waitFor(async () => expect(await load()).toEqual({ 'spread-a': 6, 'spread-b': 6, 'spread-c': 6, 'spread-d': 6 }), { timeout: 10_000, interval: 100 });
    const afterJoin = await leases();
    const movedOnJoin = [...afterJoin].filter(([id, owner]) => before.get(id) !== owner);
    expect(movedOnJoin).toHaveLength(6);
    expect(movedOnJoin.every(([, owner]) => owner === 'spread-d')).toBe(true);

    // It leaves (Ctrl-C): its six go two to each of the others.
    await d.leave();
    await vi.waitFor(async () => expect(await load()).toEqual({ 'spread-a': 8, 'spread-b': 8, 'spread-c': 8 }), { timeout: 10_000, interval: 100 });
    expect(await sql(`SELECT to_owner, COUNT(*)::int AS n FROM session_moves WHERE reason = 'left' GROUP BY to_owner ORDER BY to_owner`)).toEqual([
      { to_owner: 'spread-a', n: 2 },
      { to_owner: 'spread-b', n: 2 },
      { to_owner: 'spread-c', n: 2 },
    ]);

    // One freezes (no heartbeat, as a SIGSTOP looks from outside): after its lease, half of its
    // sessions go to each survivor, each at a new epoch.
    const frozen = await sql<{ session_id: string; epoch: string }>(`SELECT session_id, epoch FROM session_leases WHERE owner = 'spread-c'`);
    vi.spyOn(c, 'tick').mockImplementation(() => Promise.resolve());
    await vi.waitFor(async () => expect(await load()).toEqual({ 'spread-a': 12, 'spread-b': 12 }), { timeout: 10_000, interval: 100 });
    const moves = await sql<{ to_owner: string; n: number }>(
      `SELECT to_owner, COUNT(*)::int AS n FROM session_moves WHERE reason = 'dead' AND from_owner = 'spread-c' GROUP BY to_owner ORDER BY to_owner`,
    );
    expect(moves).toEqual([{ to_owner: 'spread-a', n: 4 }, { to_owner: 'spread-b', n: 4 }]);
    const epochs = new Map((await sql<{ session_id: string; epoch: string }>(`SELECT session_id, epoch FROM session_leases`)).map((row) => [row.session_id, Number(row.epoch)]));
    for (const row of frozen) expect(epochs.get(row.session_id)).toBeGreaterThan(Number(row.epoch));
    vi.mocked(c.tick).mockRestore();

    // The Cluster view: live members with their load, and the moves of the last hour.
    const view = await joined[0]!.view();
    expect(view.members.filter((member) => member.name.startsWith('spread-')).map((member) => [member.name, member.sessions])).toEqual(
      expect.arrayContaining([['spread-a', expect.any(Number)], ['spread-b', expect.any(Number)]]),
    );
    expect(view.moves.some((move) => move.reason === 'rebalance' && move.to === 'spread-d')).toBe(true);
  }, 60_000);

  it('a write carrying the epoch of a lease that moved on is refused and changes nothing; the current epoch writes', async () => {
    // No rebalance round may move the lease while the case writes (a loaded machine ran one between
    // the claim and the first write: the write was refused, rightly, and the case failed).
    const ticks = joined.map((member) => vi.spyOn(member, 'tick').mockImplementation(() => Promise.resolve()));
    onTestFinished(() => ticks.forEach((tick) => tick.mockRestore()));
    const session = await newSession('paused');
    // Claimed for the member that wins it, which notes the epoch its writes carry.
    const holder = await joined[0]!.claim(session.id);
    expect(await joined.find((member) => member.owner === holder)!.holds(session.id)).toBe(true);
    const epoch = (await sql<{ epoch: string }>('SELECT epoch FROM session_leases WHERE session_id = $1', [session.id]))[0]!.epoch;
    const turn = { sessionId: session.id, cycleNumber: 1, spontaneous: false, quiet: '', interrupted: false, answeredMessageIds: [] };
    await insertTurn({ ...turn, turnId: 't1', loud: 'written under the lease' });
    // The lease moves on (another holder, the next epoch) while this process's mind still runs.
    await sql(`UPDATE session_leases SET owner = 'elsewhere', epoch = epoch + 1 WHERE session_id = $1`, [session.id]);
    await expect(insertTurn({ ...turn, turnId: 't2', loud: 'a late write' })).rejects.toBeInstanceOf(FencedWriteError);
    holdEpoch(session.id, Number(epoch) + 1); // what the new holder carries
    await insertTurn({ ...turn, turnId: 't3', loud: 'the new holder' });
    const said = await sql<{ content: string }>(`SELECT content FROM messages WHERE session_id = $1 AND tag = 'ED_agent' ORDER BY id`, [session.id]);
    expect(said.map((row) => row.content)).toEqual(['written under the lease', 'the new holder']);
  });
});
