// Several processes on one PostgreSQL (issues 19, 31, 43): each session's mind runs in exactly one
// of them, spread by weighted rendezvous hashing (cluster-placement.ts). A member (`cluster_members`:
// a heartbeat a second on the database's clock, its capacity) holds an advisory lock named after it
// (member-watch.ts): when its process dies the lock is free at once and the others take its sessions
// within a fraction of a second; a member silent for a lease time is dead too (a stuck process). A
// session belongs to a member through its lease (`session_leases`), whose epoch every move raises:
// the mind's writes carry it and a stale one is refused (lib/store/lease-fence.ts). Every round a
// member takes the sessions it wins that nobody alive holds — with the runs their holder left — and
// hands over, at a quiet moment, the ones another member wins. A request for a session held
// elsewhere reaches its holder as a call (`cluster_calls`, announced by NOTIFY); a tool-call decision
// is announced to every process, since the waiting step may be anywhere.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { reportPoolErrors } from '@/lib/store/pg-errors';
import { disableFencing, enableFencing, holdEpoch, onFencedWrite } from '@/lib/store/lease-fence';
import { appVersion } from './app-version';
import { MemberWatch, type GoneMember } from './member-watch';
import { claimFor, clusterView, handOver, liveMembers, liveVersions, takeWon, targets, toHandOver, type ClusterView } from './cluster-placement';
import { errorText } from '@/lib/errors/error-text';

export type { ClusterBroadcast, ClusterRequest } from './cluster-messages';
import type { ClusterBroadcast, ClusterRequest } from './cluster-messages';

export interface ClusterMember {
  /** Runs a request for a session this process owns; what it returns goes back as JSON. */
  handle(request: ClusterRequest): Promise<unknown>;
  /** Something every process hears. */
  hear(event: ClusterBroadcast): void;
  /** The sessions this process holds now: minds start for new ones and stop for lost ones. */
  reconcile(owned: ReadonlySet<string>): Promise<void>;
  /** Sessions of members gone (dead, or stopped) that this process took: their durable runs continue here. */
  tookOver?(previous: ReadonlyMap<string, readonly string[]>): Promise<void>;
  /**
   * Sessions held here that another member now wins: the member stops the minds of those at a
   * quiet moment (no tool call running or awaiting a decision, no open turn, no task), has
   * `transfer` move their leases, and only then lets requests for them through again.
   */
  handOver?(candidates: readonly string[], transfer: (ids: readonly string[]) => Promise<readonly string[]>): Promise<void>;
  /** A process that connects channels (Telegram, Discord, Slack, IRC, email) holds some: exactly one process connects each. */
  reconcileChannels?(owned: ReadonlySet<string>): Promise<void>;
}

/** A call's error, as the caller rethrows it. */
export class ClusterCallError extends Error {
  constructor(
    message: string,
    readonly remoteName: string,
    /** The remote error's `code`, when it had one (a TaskError's). */
    readonly remoteCode?: string,
  ) {
    super(message);
    this.name = 'ClusterCallError';
  }
}

const CHANNEL = 'agentcsd_cluster';

type Reply = { ok: boolean; value?: unknown; error?: { name: string; message: string; code?: string } };

interface Notice {
  /** Members changed (one joined, one was found gone): every member runs a round now. */
  wake?: boolean;
  to?: string;
  call?: string;
  reply?: string;
  broadcast?: ClusterBroadcast;
}

export interface ClusterOptions {
  url: string;
  /** This process's name; the durable engine's executor id, so a restart is the same member. */
  owner: string;
  heartbeatMs?: number;
  /** A member silent this long is dead: its sessions move. */
  leaseMs?: number;
  callTimeoutMs?: number;
  /** This process's share of sessions relative to the others (AGENTCSD_CAPACITY, default 1; 0: none while others run). */
  capacity?: number;
  /** At most this many sessions handed over per round (default 8). */
  handOverPerRound?: number;
  /** How often the other members' locks are tried (default 200 ms): a killed process is found this fast. */
  watchMs?: number;
  /** The version this process runs (default this checkout's, lib/engine/app-version.ts): shown on the Cluster page; adopt reads which are live. */
  appVersion?: string;
}

export class Cluster {
  readonly owner: string;
  readonly bootId = `${os.hostname()}:${process.pid}:${randomUUID()}`;
  private readonly pool: pg.Pool;
  private listener: pg.Client | null = null;
  private relistening = false;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private member: ClusterMember | null = null;
  private readonly waiting = new Map<string, (reply: unknown) => void>();
  private readonly heartbeatMs: number;
  private readonly leaseMs: number;
  private readonly callTimeoutMs: number;
  private readonly capacity: number;
  readonly appVersion: string;
  private stopFenceWatch: (() => void) | null = null;
  private rounds = 0;
  private watch: MemberWatch | null = null;
  /** Members whose lock was found free since the last round: dead now, whatever their heartbeat says. */
  private gone: GoneMember[] = [];

  constructor(private readonly options: ClusterOptions) {
    this.owner = options.owner;
    this.heartbeatMs = options.heartbeatMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? 5_000;
    this.callTimeoutMs = options.callTimeoutMs ?? 15_000;
    this.capacity = Math.max(0, options.capacity ?? 1);
    this.appVersion = options.appVersion ?? appVersion();
    // A connection the server drops (a restart) must not take the process with it: the pool opens another.
    this.pool = reportPoolErrors(new pg.Pool({ connectionString: options.url, max: 4 }), (message) => console.error('[cluster] a database connection was lost', message));
  }

  /**
   * Joins: this member's lock first (lib/engine/member-watch.ts) — refused while another live
   * process holds the name; a dead one's place (a crash, then this restart) is free at once, and
   * taken in one statement, so no other member sees the name gone in between (issue 43 §1).
   */
  async join(member: ClusterMember): Promise<void> {
    this.member = member;
    this.watch = new MemberWatch({
      url: this.options.url,
      owner: this.owner,
      intervalMs: this.options.watchMs ?? 200,
      onGone: (gone) => {
        this.gone.push(...gone);
        void this.tick();
      },
    });
    if (!(await this.watch.start(this.leaseMs + this.heartbeatMs))) {
      this.member = null;
      throw new Error(`another process is running as "${this.owner}" on this database: give each process its own AGENTCSD_EXECUTOR_ID`);
    }
    await this.pool.query(
      `INSERT INTO cluster_members (owner, boot_id, heartbeat_at, capacity, app_version) VALUES ($1, $2, now(), $3, $4)
       ON CONFLICT (owner) DO UPDATE SET boot_id = excluded.boot_id, heartbeat_at = now(), capacity = excluded.capacity, app_version = excluded.app_version, joined_at = now(), left_at = NULL`,
      [this.owner, this.bootId, this.capacity, this.appVersion],
    );
    enableFencing();
    // A write refused for a stale epoch (the session moved while this process was away): the next round, at once, stops its mind here.
    this.stopFenceWatch = onFencedWrite((sessionId) => {
      console.warn(`[cluster] a late write for session ${sessionId} was refused: it is held elsewhere now; its mind stops here`);
      void this.tick();
    });
    await this.listen();
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.heartbeatMs);
    await this.notify({ wake: true }); // the others rebalance now, not at their next round
  }

  /** The connection NOTIFY arrives on; when it drops (the server restarted), a new one listens a second later. */
  private async listen(): Promise<void> {
    const listener = new pg.Client({ connectionString: this.options.url });
    this.listener = listener;
    listener.on('notification', (message) => this.onNotice(message.payload));
    listener.on('error', (error) => console.error('[cluster] the notification connection failed', error.message));
    listener.on('end', () => this.listenAgain(listener));
    await listener.connect();
    await listener.query(`LISTEN ${CHANNEL}`);
  }

  private listenAgain(ended: pg.Client): void {
    if (!this.member || this.listener !== ended || this.relistening) return;
    this.relistening = true;
    setTimeout(() => {
      this.relistening = false;
      if (this.member && this.listener === ended) void this.listen().catch(() => this.listenAgain(this.listener!));
    }, this.heartbeatMs);
  }

  /** One round: heartbeat, dead members' sessions taken, free active sessions taken, minds reconciled. */
  tick(): Promise<void> {
    this.ticking ??= this.round()
      .catch((error: unknown) => console.error('[cluster] round failed', error instanceof Error ? error.message : error))
      .finally(() => {
        this.ticking = null;
        if (this.gone.length > 0 && this.member) void this.tick(); // found during the round: their own round now
      });
    return this.ticking;
  }

  private async round(): Promise<void> {
    if (!this.member) return;
    const gone = this.gone.splice(0);
    const client = await this.pool.connect();
    let taken: Awaited<ReturnType<typeof takeWon>>;
    let away = new Map<string, string>();
    let wake = false;
    try {
      await client.query('BEGIN');
      const beat = await client.query('UPDATE cluster_members SET heartbeat_at = now(), capacity = $3 WHERE owner = $1 AND boot_id = $2', [this.owner, this.bootId, this.capacity]);
      if (beat.rowCount === 0) {
        // Declared dead by the others (a long pause): its sessions are theirs now; join again.
        await client.query(
          `INSERT INTO cluster_members (owner, boot_id, capacity, app_version) VALUES ($1, $2, $3, $4)
           ON CONFLICT (owner) DO UPDATE SET boot_id = excluded.boot_id, heartbeat_at = now(), capacity = excluded.capacity, app_version = excluded.app_version, joined_at = now(), left_at = NULL`,
          [this.owner, this.bootId, this.capacity, this.appVersion],
        );
      }
      // Silent for a lease time, or its lock free (the boot that held it is gone; a replacement of the same name is another boot).
      const removed = await client.query(
        `DELETE FROM cluster_members WHERE heartbeat_at < now() - make_interval(secs => $1)
            OR (owner, boot_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
        [this.leaseMs / 1000, gone.map((member) => member.owner), gone.map((member) => member.bootId)],
      );
      if ((removed.rowCount ?? 0) > 0) wake = true;
      const members = await liveMembers(client);
      const target = await targets(client, members);
      taken = await takeWon(client, this.owner, members, target);
      if (this.member.handOver) away = await toHandOver(client, this.owner, members, target);
      if (this.member.reconcileChannels) {
        // Channels the first-come way: a dead holder's are taken, enabled ones nobody holds are taken.
        await client.query(
          `WITH free AS (SELECT channel_id FROM channel_leases WHERE owner NOT IN (SELECT owner FROM cluster_members WHERE left_at IS NULL) FOR UPDATE SKIP LOCKED)
           UPDATE channel_leases SET owner = $1 FROM free WHERE channel_leases.channel_id = free.channel_id`,
          [this.owner],
        );
        await client.query(
          `INSERT INTO channel_leases (channel_id, owner) SELECT id, $1 FROM channels
           WHERE enabled AND id NOT IN (SELECT channel_id FROM channel_leases) ON CONFLICT DO NOTHING`,
          [this.owner],
        );
      }
      if (++this.rounds % 600 === 1) await client.query(`DELETE FROM session_moves WHERE moved_at < now() - interval '1 day'`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    for (const [sessionId, epoch] of taken.sessions) holdEpoch(sessionId, epoch);
    // A member found gone: the others take their share now rather than at their next round.
    if (wake) await this.notify({ wake: true }).catch(() => undefined);
    if (taken.previous.size > 0) await this.member.tookOver?.(taken.previous);
    if (away.size > 0 && this.member.handOver) {
      const candidates = [...away.keys()].slice(0, this.options.handOverPerRound ?? 8);
      await this.member.handOver(candidates, async (ids) => {
        const wanted = new Map(ids.filter((id) => away.has(id)).map((id) => [id, away.get(id)!]));
        return this.withClient((db) => handOver(db, this.owner, wanted));
      });
    }
    await this.member.reconcile(await this.owned());
    if (this.member.reconcileChannels) {
      const { rows } = await this.pool.query<{ channel_id: string }>('SELECT channel_id FROM channel_leases WHERE owner = $1', [this.owner]);
      await this.member.reconcileChannels(new Set(rows.map((row) => row.channel_id)));
    }
  }

  private async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }

  /** The sessions this process holds, with the epochs its writes carry. */
  async owned(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ session_id: string; epoch: string }>('SELECT session_id, epoch FROM session_leases WHERE owner = $1', [this.owner]);
    for (const row of rows) holdEpoch(row.session_id, Number(row.epoch));
    return new Set(rows.map((row) => row.session_id));
  }

  /** Of these sessions, the ones no other live member holds. */
  async sessionsNotHeldByOthers(ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const { rows } = await this.pool.query<{ session_id: string }>(
      `SELECT l.session_id FROM session_leases l JOIN cluster_members m ON m.owner = l.owner AND m.left_at IS NULL WHERE l.session_id = ANY($1::text[]) AND l.owner <> $2`,
      [unique, this.owner],
    );
    return unique.filter((id) => !rows.some((row) => row.session_id === id));
  }

  /** The versions live members run (this one's included): a run of none of them is carried onto this one. */
  readonly liveVersions = () => liveVersions(this.pool);

  /** Whether this process holds the session now (its epoch noted for the mind's writes). */
  async holds(sessionId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM session_leases WHERE session_id = $1', [sessionId]);
    if (rows[0]?.owner !== this.owner) return false;
    holdEpoch(sessionId, Number(rows[0].epoch));
    return true;
  }

  /** Members, their load, and the moves of the last hour (the Cluster view). */
  view(): Promise<ClusterView> {
    return clusterView(this.pool);
  }

  /**
   * Who holds the session: when nobody alive does, the live member that wins it (maybe this one)
   * takes it now.
   */
  async claim(sessionId: string): Promise<string | null> {
    const held = await this.withClient(async (client) => claimFor(client, sessionId, await liveMembers(client), this.owner));
    if (held?.owner === this.owner) {
      holdEpoch(sessionId, held.epoch);
      // Taken from a dead member: its unfinished runs come with it, as in a round.
      if (held.previous && held.previous !== this.owner) await this.member?.tookOver?.(new Map([[held.previous, [sessionId]]]));
    }
    return held?.owner ?? null;
  }

  /** Asks the process that owns the session to run the request there. */
  async call(owner: string, request: ClusterRequest): Promise<unknown> {
    const id = randomUUID();
    const answered = new Promise<unknown>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        clearInterval(watch);
        this.waiting.delete(id);
      };
      const timer = setTimeout(() => {
        done();
        reject(new ClusterCallError(`the process running this session (${owner}) did not answer within ${this.callTimeoutMs / 1000} s`, 'ClusterTimeout'));
      }, this.callTimeoutMs);
      // The holder died (or left) before taking the call: withdrawn, so the caller may send it to
      // the session's next holder without it ever running twice.
      const watch = setInterval(() => {
        void this.withdrawIfGone(id, owner).then((gone) => {
          if (!gone || !this.waiting.has(id)) return;
          done();
          reject(new ClusterCallError(`the process running this session (${owner}) is gone`, 'ClusterOwnerGone'));
        }, () => undefined);
      }, this.heartbeatMs);
      this.waiting.set(id, (reply) => {
        done();
        resolve(reply);
      });
    });
    await this.pool.query('INSERT INTO cluster_calls (id, to_owner, request) VALUES ($1, $2, $3)', [id, owner, JSON.stringify({ from: this.owner, request })]);
    await this.notify({ to: owner, call: id });
    try {
      await answered;
    } catch (error) {
      await this.pool.query('DELETE FROM cluster_calls WHERE id = $1', [id]).catch(() => undefined);
      throw error;
    }
    const { rows } = await this.pool.query<{ reply: Reply }>('DELETE FROM cluster_calls WHERE id = $1 RETURNING reply', [id]);
    const reply = rows[0]?.reply;
    if (!reply) throw new ClusterCallError('the call was lost', 'ClusterLost');
    if (!reply.ok) throw new ClusterCallError(reply.error?.message ?? 'failed', reply.error?.name ?? 'Error', reply.error?.code);
    return reply.value;
  }

  /** Deletes a call nobody took when its addressee is no live member; whether it did. */
  private async withdrawIfGone(id: string, owner: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM cluster_calls WHERE id = $1 AND reply IS NULL AND NOT EXISTS (SELECT 1 FROM cluster_members WHERE owner = $2 AND left_at IS NULL)`,
      [id, owner],
    );
    return (rowCount ?? 0) > 0;
  }

  async broadcast(event: ClusterBroadcast): Promise<void> {
    await this.notify({ broadcast: event });
  }

  private async notify(notice: Notice): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(notice)]);
  }

  private onNotice(payload: string | undefined): void {
    let notice: Notice;
    try {
      notice = JSON.parse(payload ?? '') as Notice;
    } catch {
      return;
    }
    if (notice.wake) {
      if (this.member) void this.tick();
      return;
    }
    if (notice.broadcast) {
      this.member?.hear(notice.broadcast);
      return;
    }
    if (notice.to !== this.owner) return;
    if (notice.reply) this.waiting.get(notice.reply)?.(true);
    else if (notice.call) void this.answer(notice.call);
  }

  private async answer(id: string): Promise<void> {
    // Taken once, whoever hears it (a notification heard twice must not send a message twice).
    const { rows } = await this.pool.query<{ request: { from: string; request: ClusterRequest } }>(
      `UPDATE cluster_calls SET reply = '{"ok":false,"taken":true}' WHERE id = $1 AND reply IS NULL RETURNING request`,
      [id],
    );
    const call = rows[0]?.request;
    if (!call || !this.member) return;
    let reply: Reply;
    try {
      reply = { ok: true, value: (await this.member.handle(call.request)) ?? null };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      reply = { ok: false, error: { name: error instanceof Error ? error.name : 'Error', message: errorText(error), ...(typeof code === 'string' && { code }) } };
    }
    await this.pool.query('UPDATE cluster_calls SET reply = $2 WHERE id = $1', [id, JSON.stringify(reply)]);
    await this.notify({ to: call.from, reply: id });
  }

  /** Leaves: its sessions free at once for the others (a crash leaves them to expire); whether other live processes remain to take them. */
  async leave(): Promise<boolean> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    this.member = null; // no listening again once the connection ends
    this.stopFenceWatch?.();
    disableFencing();
    try {
      const { rows } = await this.pool.query<{ others: number }>(
        `WITH gone AS (UPDATE cluster_members SET left_at = now() WHERE owner = $1 AND boot_id = $2)
         SELECT COUNT(*)::int AS others FROM cluster_members WHERE owner <> $1 AND left_at IS NULL AND heartbeat_at > now() - make_interval(secs => $3)`,
        [this.owner, this.bootId, this.leaseMs / 1000],
      );
      return (rows[0]?.others ?? 0) > 0;
    } catch {
      return false; // the database is gone: the others find this member's lock free and take over
    } finally {
      // After `left_at` is set: a member that left is not taken for dead when its lock goes.
      await this.watch?.stop();
      await this.listener?.end().catch(() => undefined);
      await this.pool.end();
    }
  }
}
