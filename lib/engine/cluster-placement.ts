// Which member holds which session (issue 31): weighted rendezvous hashing with bounded, sticky
// loads over the live members, the active sessions and their current holders (rendezvous.ts), so
// each member computes the same answer alone; the database arbitrates with row locks.
// A member takes the sessions it wins that nobody alive holds (new ones, a dead or departed
// member's), and hands the ones it holds but another member now wins to that member — at a quiet
// moment, after stopping its mind there. Every change of holder raises the lease's epoch (the
// fencing token, lib/store/lease-fence.ts) and is recorded in `session_moves`.
import type pg from 'pg';
import { assign, preferredOwner, type Weighted } from './rendezvous';

export type MoveReason = 'new' | 'rebalance' | 'left' | 'dead';

export interface Taken {
  /** The sessions taken, with the epoch now held. */
  sessions: Map<string, number>;
  /** Whose they were (a dead or departed member): its unfinished runs come with them. */
  previous: Map<string, string[]>;
}

export async function liveMembers(client: pg.ClientBase): Promise<Weighted[]> {
  const { rows } = await client.query<{ owner: string; capacity: number }>('SELECT owner, capacity FROM cluster_members WHERE left_at IS NULL ORDER BY owner');
  return rows.map((row) => ({ owner: row.owner, capacity: Number(row.capacity) }));
}

/** Who should hold each active session (and `extra`, a session about to be claimed). */
export async function targets(client: pg.ClientBase, members: readonly Weighted[], extra?: string): Promise<Map<string, string>> {
  const { rows } = await client.query<{ id: string; owner: string | null }>(
    `SELECT s.id, l.owner FROM sessions s LEFT JOIN session_leases l ON l.session_id = s.id WHERE s.status = 'active'`,
  );
  const ids = rows.map((row) => row.id);
  if (extra && !ids.includes(extra)) ids.push(extra);
  return assign(ids, members, new Map(rows.flatMap((row) => (row.owner ? [[row.id, row.owner] as const] : []))));
}

const winner = (target: ReadonlyMap<string, string>, id: string, members: readonly Weighted[]) => target.get(id) ?? preferredOwner(id, members);

/** Inside the round's transaction: the orphaned and the unheld active sessions this member wins. */
export async function takeWon(client: pg.ClientBase, me: string, members: readonly Weighted[], target: ReadonlyMap<string, string>): Promise<Taken> {
  const taken: Taken = { sessions: new Map(), previous: new Map() };
  // Rows another member has locked are its to judge this round.
  const orphans = await client.query<{ session_id: string; owner: string; left: boolean }>(
    `SELECT l.session_id, l.owner, EXISTS (SELECT 1 FROM cluster_members m WHERE m.owner = l.owner AND m.left_at IS NOT NULL) AS left
       FROM session_leases l WHERE l.owner NOT IN (SELECT owner FROM cluster_members WHERE left_at IS NULL) FOR UPDATE OF l SKIP LOCKED`,
  );
  const won = orphans.rows.filter((row) => winner(target, row.session_id, members) === me);
  if (won.length > 0) {
    const moved = await client.query<{ session_id: string; epoch: string }>(
      'UPDATE session_leases SET owner = $1, epoch = epoch + 1 WHERE session_id = ANY($2::text[]) RETURNING session_id, epoch',
      [me, won.map((row) => row.session_id)],
    );
    for (const row of moved.rows) taken.sessions.set(row.session_id, Number(row.epoch));
    for (const row of won) taken.previous.set(row.owner, [...(taken.previous.get(row.owner) ?? []), row.session_id]);
    await recordMoves(client, won.map((row) => ({ sessionId: row.session_id, from: row.owner, to: me, reason: row.left ? 'left' : 'dead' })));
  }
  const free = await client.query<{ id: string }>(
    `SELECT id FROM sessions WHERE status = 'active' AND NOT EXISTS (SELECT 1 FROM session_leases WHERE session_id = sessions.id)`,
  );
  const fresh = free.rows.map((row) => row.id).filter((id) => winner(target, id, members) === me);
  if (fresh.length > 0) {
    const inserted = await client.query<{ session_id: string; epoch: string }>(
      `INSERT INTO session_leases (session_id, owner) SELECT unnest($2::text[]), $1 ON CONFLICT DO NOTHING RETURNING session_id, epoch`,
      [me, fresh],
    );
    for (const row of inserted.rows) taken.sessions.set(row.session_id, Number(row.epoch));
    await recordMoves(client, inserted.rows.map((row) => ({ sessionId: row.session_id, from: null, to: me, reason: 'new' })));
  }
  return taken;
}

/** The active sessions this member holds that another live member now wins, with who. */
export async function toHandOver(client: pg.ClientBase, me: string, members: readonly Weighted[], target: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const { rows } = await client.query<{ session_id: string }>(
    `SELECT l.session_id FROM session_leases l JOIN sessions s ON s.id = l.session_id WHERE l.owner = $1 AND s.status = 'active'`,
    [me],
  );
  const away = new Map<string, string>();
  for (const { session_id: id } of rows) {
    const to = winner(target, id, members);
    if (to && to !== me) away.set(id, to);
  }
  return away;
}

/** Hands the sessions over (only while still held here): each to its winner, at the next epoch. */
export async function handOver(client: pg.ClientBase, me: string, sessions: ReadonlyMap<string, string>): Promise<string[]> {
  if (sessions.size === 0) return [];
  const ids = [...sessions.keys()];
  const { rows } = await client.query<{ session_id: string; owner: string }>(
    `UPDATE session_leases SET owner = m.owner, epoch = epoch + 1
       FROM unnest($2::text[], $3::text[]) AS m(session_id, owner)
      WHERE session_leases.session_id = m.session_id AND session_leases.owner = $1
      RETURNING session_leases.session_id, session_leases.owner`,
    [me, ids, ids.map((id) => sessions.get(id)!)],
  );
  await recordMoves(client, rows.map((row) => ({ sessionId: row.session_id, from: me, to: row.owner, reason: 'rebalance' })));
  return rows.map((row) => row.session_id);
}

/**
 * A session nobody alive holds: a new one goes to the member that wins it (maybe not this one), a
 * dead member's to this one; who holds it after, at which epoch, and whose it was.
 */
export async function claimFor(client: pg.ClientBase, sessionId: string, members: readonly Weighted[], me: string): Promise<{ owner: string; epoch: number; previous?: string } | null> {
  const to = winner(await targets(client, members, sessionId), sessionId, members) ?? me;
  const { rows } = await client.query<{ owner: string; epoch: string; previous: string | null }>(
    `WITH before AS (SELECT owner FROM session_leases WHERE session_id = $1)
     INSERT INTO session_leases (session_id, owner) SELECT id, $2 FROM sessions WHERE id = $1
     ON CONFLICT (session_id) DO UPDATE SET owner = $3, epoch = session_leases.epoch + 1
       WHERE session_leases.owner NOT IN (SELECT owner FROM cluster_members WHERE left_at IS NULL)
     RETURNING owner, epoch, (SELECT owner FROM before) AS previous`,
    // A new session goes to its winner; a dead member's to the claimer, which adopts its runs with
    // it (issue 43 §1) — the winner would never hear that it had runs to adopt. Rebalancing moves it
    // at a quiet moment.
    [sessionId, to, me],
  );
  const row = rows[0];
  if (row) {
    await recordMoves(client, [{ sessionId, from: row.previous, to: row.owner, reason: row.previous ? 'dead' : 'new' }]);
    return { owner: row.owner, epoch: Number(row.epoch), ...(row.previous && { previous: row.previous }) };
  }
  const held = await client.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM session_leases WHERE session_id = $1', [sessionId]);
  return held.rows[0] ? { owner: held.rows[0].owner, epoch: Number(held.rows[0].epoch) } : null;
}

async function recordMoves(client: pg.ClientBase, moves: { sessionId: string; from: string | null; to: string; reason: MoveReason }[]): Promise<void> {
  if (moves.length === 0) return;
  await client.query(
    `INSERT INTO session_moves (session_id, from_owner, to_owner, reason) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
    [moves.map((move) => move.sessionId), moves.map((move) => move.from), moves.map((move) => move.to), moves.map((move) => move.reason)],
  );
}

/** The versions live members run (lib/engine/app-version.ts); a member that did not say is left out. */
export async function liveVersions(client: pg.ClientBase | pg.Pool): Promise<string[]> {
  const { rows } = await client.query<{ app_version: string }>('SELECT DISTINCT app_version FROM cluster_members WHERE left_at IS NULL AND app_version IS NOT NULL');
  return rows.map((row) => row.app_version);
}

export interface ClusterView {
  members: { name: string; capacity: number; sessions: number; last_heartbeat: string; joined_at: string; version: string | null }[];
  moves: { session_id: string; from: string | null; to: string; reason: string; at: string }[];
}

/** The Cluster view (GET /api/cluster): live members with their load, and the last hour's moves. */
export async function clusterView(client: pg.ClientBase | pg.Pool): Promise<ClusterView> {
  const members = await client.query<{ owner: string; capacity: number; sessions: number; heartbeat_at: Date; joined_at: Date; app_version: string | null }>(
    `SELECT m.owner, m.capacity, m.heartbeat_at, m.joined_at, m.app_version,
            (SELECT COUNT(*)::int FROM session_leases l JOIN sessions s ON s.id = l.session_id WHERE l.owner = m.owner AND s.status = 'active') AS sessions
       FROM cluster_members m WHERE m.left_at IS NULL ORDER BY m.owner`,
  );
  const moves = await client.query<{ session_id: string; from_owner: string | null; to_owner: string; reason: string; moved_at: Date }>(
    `SELECT session_id, from_owner, to_owner, reason, moved_at FROM session_moves WHERE moved_at > now() - interval '1 hour' ORDER BY id DESC LIMIT 200`,
  );
  return {
    members: members.rows.map((row) => ({ name: row.owner, capacity: Number(row.capacity), sessions: row.sessions, last_heartbeat: row.heartbeat_at.toISOString(), joined_at: row.joined_at.toISOString(), version: row.app_version })),
    moves: moves.rows.map((row) => ({ session_id: row.session_id, from: row.from_owner, to: row.to_owner, reason: row.reason, at: row.moved_at.toISOString() })),
  };
}
