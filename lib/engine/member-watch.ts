// Failover in a second, not a lease time (issue 43 §2). Each member holds a session-level advisory
// lock named after it on a connection of its own; PostgreSQL lets go of it the moment that
// connection closes — a process killed with SIGKILL closes its sockets at once. Every other member
// tries the others' locks every `intervalMs` on the same connection: one it can take (and gives
// back at once) belongs to a member whose process is gone, whatever its last heartbeat says. The
// lease stays the fallback for what a lock cannot see: a process alive but stuck, or cut from the
// network while its connection stays open.
import pg from 'pg';
import { quietClient } from '@/lib/store/pg-errors';

/** The lock of a member: one class for all members, the member's name hashed within it. */
const LOCK = `hashtext('agentcsd-member'), hashtext($1)`;

export interface GoneMember {
  owner: string;
  /** The boot that held the name: a replacement of the same name (another boot) is not gone. */
  bootId: string;
}

export class MemberWatch {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private stopped = false;

  constructor(
    private readonly options: {
      url: string;
      owner: string;
      intervalMs: number;
      /** Members found gone: the cluster runs a round for them now. */
      onGone: (gone: GoneMember[]) => void;
    },
  ) {}

  /**
   * Takes this member's lock, waiting up to `waitMs` for a previous holder of the name to let go of
   * it; false when it could not (another live process holds the name), then nothing is watched.
   */
  async start(waitMs: number): Promise<boolean> {
    this.stopped = false;
    // Named, so an operator sees whose lock a connection holds (pg_stat_activity).
    const client = quietClient(new pg.Client({ connectionString: this.options.url, application_name: `agentcsd-member:${this.options.owner}`.slice(0, 63) }));
    client.on('error', () => undefined); // 'end' follows: handled there
    await client.connect();
    for (const deadline = Date.now() + waitMs; ; ) {
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${LOCK}) AS locked`, [this.options.owner]);
      if (rows[0]?.locked) break;
      if (Date.now() > deadline) {
        await client.end().catch(() => undefined);
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.client = client;
    // The connection lost (the server restarted): the others may take this member for dead — its
    // next round joins again — and the lock is taken again on a new connection.
    client.on('end', () => {
      if (this.client !== client || this.stopped) return;
      this.client = null;
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      setTimeout(() => void this.start(0).catch(() => undefined), this.options.intervalMs);
    });
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
    return true;
  }

  /** The members whose lock is free: their process is gone. */
  private async check(): Promise<void> {
    const client = this.client;
    if (!client || this.checking) return;
    this.checking = true;
    try {
      const { rows } = await client.query<GoneMember & { boot_id: string }>(
        `SELECT owner, boot_id FROM cluster_members
          WHERE left_at IS NULL AND owner <> $1 AND pg_try_advisory_lock(hashtext('agentcsd-member'), hashtext(owner))`,
        [this.options.owner],
      );
      if (rows.length === 0) return;
      for (const row of rows) await client.query(`SELECT pg_advisory_unlock(${LOCK})`, [row.owner]);
      this.options.onGone(rows.map((row) => ({ owner: row.owner, bootId: row.boot_id })));
    } catch {
      // A failed check is tried again next time (the connection's end is handled above).
    } finally {
      this.checking = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
