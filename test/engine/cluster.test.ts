// The cluster's own promises (lib/engine/cluster.ts), with two members in this process on a real
// PostgreSQL — each member a recorder standing in for an orchestrator: a call reaches the holder and
// its answer (or its error, by name and code) comes back; a notification heard twice runs the call
// once; a member that stops hands its sessions over; a second live process with the same name is
// refused; after PostgreSQL itself is killed and
// restarted, calls get through again (the notification connection listens anew).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster, ClusterCallError, type ClusterBroadcast, type ClusterMember, type ClusterRequest } from '@/lib/engine/cluster';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { closeDb, getDb } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let database: TestPostgres;
const members: Cluster[] = [];

const recorders: Recorder[] = [];

class Recorder implements ClusterMember {
  name = '';
  readonly handled: ClusterRequest[] = [];
  readonly heard: ClusterBroadcast[] = [];
  owned = new Set<string>();
  readonly tookOverFrom: string[] = [];
  async tookOver(previous: ReadonlyMap<string, readonly string[]>): Promise<void> {
    this.tookOverFrom.push(...previous.keys());
  }
  /** Every candidate is quiet: handed over at once. */
  async handOver(candidates: readonly string[], transfer: (ids: readonly string[]) => Promise<readonly string[]>): Promise<void> {
    await transfer(candidates);
  }
  async handle(request: ClusterRequest): Promise<unknown> {
    this.handled.push(request);
    if (request.kind === 'message' && request.text === 'refuse') throw Object.assign(new Error('The task waits for a decision'), { name: 'TaskError', code: 'conflict' });
    return request.kind === 'message' ? { echoed: request.text } : null;
  }
  hear(event: ClusterBroadcast): void {
    this.heard.push(event);
  }
  async reconcile(owned: ReadonlySet<string>): Promise<void> {
    this.owned = new Set(owned);
  }
}

beforeAll(async () => {
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  await getDb(); // the cluster's tables
}, 60_000);

afterAll(async () => {
  for (const member of members) await member.leave().catch(() => undefined);
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
});

async function join(owner: string, recorder: Recorder, options: { leaseMs?: number } = {}): Promise<Cluster> {
  recorder.name = owner;
  recorders.push(recorder);
  const cluster = new Cluster({ url: database.url, owner, heartbeatMs: 200, leaseMs: options.leaseMs ?? 2_000, callTimeoutMs: 3_000 });
  await cluster.join(recorder);
  members.push(cluster);
  return cluster;
}

async function sql(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('the cluster', () => {
  it('a call reaches the holder and its answer or error comes back; a broadcast reaches every member', async () => {
    const a = new Recorder();
    const b = new Recorder();
    const first = await join('member-a', a);
    await join('member-b', b);
    expect(await first.call('member-b', { kind: 'message', sessionId: 's1', text: 'hello' })).toEqual({ echoed: 'hello' });
    const refused = await first.call('member-b', { kind: 'message', sessionId: 's1', text: 'refuse' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClusterCallError);
    expect(refused).toMatchObject({ remoteName: 'TaskError', remoteCode: 'conflict', message: 'The task waits for a decision' });
    await first.broadcast({ kind: 'tool-call-decided', callId: 'c1' });
    await vi.waitFor(() => expect([a.heard, b.heard]).toEqual([[{ kind: 'tool-call-decided', callId: 'c1' }], [{ kind: 'tool-call-decided', callId: 'c1' }]]), { timeout: 10_000 });
    expect(await sql('SELECT COUNT(*)::int AS n FROM cluster_calls')).toEqual([{ n: 0 }]); // answered calls leave no row
  });

  it('a call to a holder that is gone before taking it is withdrawn, so it can go to the next holder without running twice', async () => {
    const caller = await join('member-i', new Recorder());
    const refused = await caller.call('member-gone', { kind: 'message', sessionId: 's9', text: 'anyone?' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'ClusterCallError', remoteName: 'ClusterOwnerGone' });
    expect(await sql(`SELECT COUNT(*)::int AS n FROM cluster_calls WHERE to_owner = 'member-gone'`)).toEqual([{ n: 0 }]);
  });

  it('a call announced twice runs once', async () => {
    const c = new Recorder();
    await join('member-c', c);
    await sql(`INSERT INTO cluster_calls (id, to_owner, request) VALUES ('twice', 'member-c', $1)`, [JSON.stringify({ from: 'member-a', request: { kind: 'message', sessionId: 's1', text: 'once' } })]);
    const notice = JSON.stringify({ to: 'member-c', call: 'twice' });
    await sql('SELECT pg_notify($1, $2), pg_notify($1, $3)', ['agentcsd_cluster', notice, `${notice} `]);
    await vi.waitFor(async () => expect((await sql(`SELECT reply FROM cluster_calls WHERE id = 'twice'`))[0].reply).toEqual({ ok: true, value: { echoed: 'once' } }), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(c.handled.filter((request) => request.kind === 'message' && request.text === 'once')).toHaveLength(1);
  });

  it('a member that stops hands its sessions over at once, and the taker is told whose they were (to adopt its runs)', async () => {
    // Paused: no round claims it or hands it over; the leaving member holds it.
    const session = await insertSession({ id: randomUUID(), name: 'moves', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    const leaving = await join('member-g', new Recorder(), { leaseMs: 10_000 });
    await sql(`INSERT INTO session_leases (session_id, owner) VALUES ($1, 'member-g')`, [session.id]);
    await join('member-h', new Recorder(), { leaseMs: 10_000 });
    await leaving.leave();
    // Some live member (the first round to see it) holds it now, and only that one adopts member-g's runs.
    // The member that wins it takes it on its next round (every 200 ms; longer on a loaded machine).
    await vi.waitFor(async () => expect((await sql('SELECT owner FROM session_leases WHERE session_id = $1', [session.id]))[0].owner).not.toBe('member-g'), { timeout: 10_000, interval: 100 });
    const [{ owner }] = await sql('SELECT owner FROM session_leases WHERE session_id = $1', [session.id]);
    await vi.waitFor(() => expect(recorders.filter((recorder) => recorder.tookOverFrom.includes('member-g')).map((recorder) => recorder.name)).toEqual([owner]), { timeout: 10_000, interval: 100 });
  });

  it('a member whose lock goes (its process died: its connection closed) is dead at once, long before its lease; the taker adopts its runs', async () => {
    const session = await insertSession({ id: randomUUID(), name: 'lock', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    const dying = await join('member-k', new Recorder(), { leaseMs: 60_000 });
    await sql(`INSERT INTO session_leases (session_id, owner) VALUES ($1, 'member-k')`, [session.id]);
    const taker = new Recorder();
    await join('member-l', taker, { leaseMs: 60_000 });
    // As a SIGKILL does: no more rounds, and its connections closed by the server.
    (dying as unknown as { timer: NodeJS.Timeout | null; member: unknown }).member = null;
    clearInterval((dying as unknown as { timer: NodeJS.Timeout }).timer);
    await (dying as unknown as { watch: { stop(): Promise<void> } }).watch.stop();
    // Its heartbeat is fresh for a minute: only the free lock can say it is gone.
    await vi.waitFor(async () => expect((await sql('SELECT owner FROM session_leases WHERE session_id = $1', [session.id]))[0].owner).not.toBe('member-k'), { timeout: 20_000, interval: 100 });
    expect(await sql(`SELECT owner FROM cluster_members WHERE owner = 'member-k'`)).toEqual([]);
    expect(recorders.filter((recorder) => recorder.tookOverFrom.includes('member-k')).length).toBe(1);
  }, 30_000);

  it('a second live process with the same name is refused after one lease time', async () => {
    await join('member-d', new Recorder(), { leaseMs: 600 });
    const twin = new Cluster({ url: database.url, owner: 'member-d', heartbeatMs: 200, leaseMs: 600 });
    await expect(twin.join(new Recorder())).rejects.toThrow('another process is running as "member-d" on this database: give each process its own AGENTCSD_EXECUTOR_ID');
  });

  it('after PostgreSQL is killed and restarted, calls get through again', async () => {
    const e = new Recorder();
    const f = new Recorder();
    const caller = await join('member-e', e, { leaseMs: 10_000 });
    await join('member-f', f, { leaseMs: 10_000 });
    await database.crashAndRestart();
    await vi.waitFor(async () => expect(await caller.call('member-f', { kind: 'message', sessionId: 's2', text: 'back' })).toEqual({ echoed: 'back' }), { timeout: 20_000, interval: 500 });
  }, 40_000);
});
