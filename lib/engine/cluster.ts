// Several processes on one PostgreSQL (issue 19): each session's mind runs in exactly one of them,
// and moves when that one dies. A process is a member (`cluster_members`, a heartbeat every second,
// on the database's clock); a session belongs to a member through its lease (`session_leases`).
// Every tick a member renews its heartbeat, removes members silent for longer than the lease time,
// takes the sessions of members gone (dead, or stopped) — of two survivors exactly one gets each
// session, and with it the runs its holder left unfinished — then
// takes active sessions nobody holds. What a person does through another process reaches the
// owner as a call (`cluster_calls`, announced by NOTIFY): a message, a Stop, a settings change; a
// tool-call decision is announced to every process, since the waiting step may be anywhere.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { reportPoolErrors } from '@/lib/store/pg-errors';

export type ClusterRequest =
  | { kind: 'message'; sessionId: string; text: string }
  | { kind: 'stop-turn'; sessionId: string }
  /** Where the session's event numbering stands in the holder (a browser joining elsewhere). */
  | { kind: 'event-position'; sessionId: string }
  /** The session's row changed (status, models, params): its mind reads it again, its tasks are scheduled. */
  | { kind: 'session-changed'; sessionId: string }
  | { kind: 'task-resume'; sessionId: string; taskId: string; input: string }
  | { kind: 'task-cancel'; sessionId: string; taskId: string }
  /** A person's answer to an MCP server's question, for the process whose call asked it. */
  | { kind: 'elicitation-answer'; sessionId: string; id: string; answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> } };

export type ClusterBroadcast =
  | { kind: 'tool-call-decided'; callId: string }
  | { kind: 'tool-call-cancelled'; callId: string }
  /** A schedule was made or changed: every process's timer looks again (the earliest slot may be new). */
  | { kind: 'schedules-changed' }
  /** A remote MCP server's sign-in changed: every process connects it again with what is stored. */
  | { kind: 'mcp-auth-changed'; server: string };

export interface ClusterMember {
  /** Runs a request for a session this process owns; what it returns goes back as JSON. */
  handle(request: ClusterRequest): Promise<unknown>;
  /** Something every process hears. */
  hear(event: ClusterBroadcast): void;
  /** The sessions this process holds now: minds start for new ones and stop for lost ones. */
  reconcile(owned: ReadonlySet<string>): Promise<void>;
  /** Members gone (dead, or stopped) whose sessions this process took: their durable runs continue here. */
  tookOver?(owners: readonly string[]): Promise<void>;
  /** A process that connects channels (Telegram, IRC) holds some: exactly one process connects each. */
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

  constructor(private readonly options: ClusterOptions) {
    this.owner = options.owner;
    this.heartbeatMs = options.heartbeatMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? 5_000;
    this.callTimeoutMs = options.callTimeoutMs ?? 15_000;
    // A connection the server drops (a restart) must not take the process with it: the pool opens another.
    this.pool = reportPoolErrors(new pg.Pool({ connectionString: options.url, max: 4 }), (message) => console.error('[cluster] a database connection was lost', message));
  }

  /**
   * Joins: refused while another live process uses the same name (its heartbeat fresh for a whole
   * lease time); a dead one's place (a crash, then this restart) is taken.
   */
  async join(member: ClusterMember): Promise<void> {
    this.member = member;
    const deadline = Date.now() + this.leaseMs + this.heartbeatMs;
    for (;;) {
      const { rows } = await this.pool.query<{ owner: string }>(
        `INSERT INTO cluster_members (owner, boot_id, heartbeat_at) VALUES ($1, $2, now())
         ON CONFLICT (owner) DO UPDATE SET boot_id = excluded.boot_id, heartbeat_at = now()
           WHERE cluster_members.heartbeat_at < now() - make_interval(secs => $3)
         RETURNING owner`,
        [this.owner, this.bootId, this.leaseMs / 1000],
      );
      if (rows.length === 1) break;
      if (await this.holderIsGoneFromThisHost()) {
        await this.pool.query('DELETE FROM cluster_members WHERE owner = $1', [this.owner]);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another process is running as "${this.owner}" on this database: give each process its own AGENTCSD_EXECUTOR_ID`);
      await new Promise((resolve) => setTimeout(resolve, this.heartbeatMs));
    }
    await this.listen();
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.heartbeatMs);
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

  /** The previous holder of this name ran on this machine and its process is gone (kill -9, then restart). */
  private async holderIsGoneFromThisHost(): Promise<boolean> {
    const { rows } = await this.pool.query<{ boot_id: string }>('SELECT boot_id FROM cluster_members WHERE owner = $1', [this.owner]);
    const [host, pid] = (rows[0]?.boot_id ?? '').split(':');
    if (host !== os.hostname() || !pid) return false;
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  /** One round: heartbeat, dead members' sessions taken, free active sessions taken, minds reconciled. */
  tick(): Promise<void> {
    this.ticking ??= this.round()
      .catch((error: unknown) => console.error('[cluster] round failed', error instanceof Error ? error.message : error))
      .finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async round(): Promise<void> {
    if (!this.member) return;
    const client = await this.pool.connect();
    let previous: string[] = [];
    try {
      await client.query('BEGIN');
      const beat = await client.query('UPDATE cluster_members SET heartbeat_at = now() WHERE owner = $1 AND boot_id = $2', [this.owner, this.bootId]);
      if (beat.rowCount === 0) {
        // Declared dead by the others (a long pause): its sessions are theirs now; join again.
        await client.query('INSERT INTO cluster_members (owner, boot_id) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET boot_id = excluded.boot_id, heartbeat_at = now()', [this.owner, this.bootId]);
      }
      await client.query('DELETE FROM cluster_members WHERE heartbeat_at < now() - make_interval(secs => $1)', [this.leaseMs / 1000]);
      // A lease whose holder is no member (dead, or left) is taken; rows another taker has locked are
      // its to take. Who held them: their unfinished runs come here with them.
      const taken = await client.query<{ owner: string }>(
        `WITH free AS (SELECT session_id, owner FROM session_leases WHERE owner NOT IN (SELECT owner FROM cluster_members) FOR UPDATE SKIP LOCKED)
         UPDATE session_leases SET owner = $1 FROM free WHERE session_leases.session_id = free.session_id RETURNING free.owner`,
        [this.owner],
      );
      previous = [...new Set(taken.rows.map((row) => row.owner))];
      await client.query(
        `INSERT INTO session_leases (session_id, owner) SELECT id, $1 FROM sessions
         WHERE status = 'active' AND id NOT IN (SELECT session_id FROM session_leases) ON CONFLICT DO NOTHING`,
        [this.owner],
      );
      if (this.member.reconcileChannels) {
        // Channels the same way: a dead holder's are taken, enabled ones nobody holds are taken.
        await client.query(
          `WITH free AS (SELECT channel_id FROM channel_leases WHERE owner NOT IN (SELECT owner FROM cluster_members) FOR UPDATE SKIP LOCKED)
           UPDATE channel_leases SET owner = $1 FROM free WHERE channel_leases.channel_id = free.channel_id`,
          [this.owner],
        );
        await client.query(
          `INSERT INTO channel_leases (channel_id, owner) SELECT id, $1 FROM channels
           WHERE enabled AND id NOT IN (SELECT channel_id FROM channel_leases) ON CONFLICT DO NOTHING`,
          [this.owner],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    if (previous.length > 0) await this.member.tookOver?.(previous);
    await this.member.reconcile(await this.owned());
    if (this.member.reconcileChannels) {
      const { rows } = await this.pool.query<{ channel_id: string }>('SELECT channel_id FROM channel_leases WHERE owner = $1', [this.owner]);
      await this.member.reconcileChannels(new Set(rows.map((row) => row.channel_id)));
    }
  }

  /** The sessions this process holds. */
  async owned(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ session_id: string }>('SELECT session_id FROM session_leases WHERE owner = $1', [this.owner]);
    return new Set(rows.map((row) => row.session_id));
  }

  /** Takes the session when nobody alive holds it; who holds it after. */
  async claim(sessionId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ owner: string }>(
      `INSERT INTO session_leases (session_id, owner) SELECT id, $2 FROM sessions WHERE id = $1
       ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner
         WHERE session_leases.owner NOT IN (SELECT owner FROM cluster_members)
       RETURNING owner`,
      [sessionId, this.owner],
    );
    if (rows[0]) return rows[0].owner;
    return this.ownerOf(sessionId);
  }

  async ownerOf(sessionId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ owner: string }>('SELECT owner FROM session_leases WHERE session_id = $1', [sessionId]);
    return rows[0]?.owner ?? null;
  }

  /** Asks the process that owns the session to run the request there. */
  async call(owner: string, request: ClusterRequest): Promise<unknown> {
    const id = randomUUID();
    const answered = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new ClusterCallError(`the process running this session (${owner}) did not answer within ${this.callTimeoutMs / 1000} s`, 'ClusterTimeout'));
      }, this.callTimeoutMs);
      this.waiting.set(id, (reply) => {
        clearTimeout(timer);
        this.waiting.delete(id);
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
      reply = { ok: false, error: { name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' && { code }) } };
    }
    await this.pool.query('UPDATE cluster_calls SET reply = $2 WHERE id = $1', [id, JSON.stringify(reply)]);
    await this.notify({ to: call.from, reply: id });
  }

  /**
   * Leaves: the sessions it held are free at once (the others take them on their next round)
   * instead of after a lease time. A crash leaves them to expire. Whether other live processes
   * remain to take them.
   */
  async leave(): Promise<boolean> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    this.member = null; // no listening again once the connection ends
    try {
      const { rows } = await this.pool.query<{ others: number }>(
        `WITH gone AS (DELETE FROM cluster_members WHERE owner = $1 AND boot_id = $2)
         SELECT COUNT(*)::int AS others FROM cluster_members WHERE owner <> $1 AND heartbeat_at > now() - make_interval(secs => $3)`,
        [this.owner, this.bootId, this.leaseMs / 1000],
      );
      return (rows[0]?.others ?? 0) > 0;
    } finally {
      await this.listener?.end().catch(() => undefined);
      await this.pool.end();
    }
  }
}
