// The rows behind a session's files in the database (issue 31; PostgreSQL only): its workspace's
// files and its persona snapshot, so they exist on whichever machine its mind runs. Every write
// carries the session's lease epoch (lease-fence.ts): a process that lost the session while paused
// cannot overwrite the newer copy when it wakes.
import type pg from 'pg';
import { getStore } from './db';
import { fencedWrite, fenceGuard, writeEpoch } from './lease-fence';
import { pgRaw } from './pg-raw';

export type SessionFileKind = 'workspace' | 'persona';

export interface WorkspaceSyncRow {
  generation: number;
  files: number;
  bytes: number;
  overCap: boolean;
  syncedBy: string;
  syncedAt: Date;
}

/** The pool when the store is PostgreSQL; null on SQLite (one machine: nothing to sync). */
export async function sessionFilesPool(): Promise<pg.Pool | null> {
  const store = await getStore();
  return store.kind === 'postgres' ? pgRaw(store.url) : null;
}

export async function readWorkspaceSync(pool: pg.Pool, sessionId: string): Promise<WorkspaceSyncRow | null> {
  const { rows } = await pool.query<{ generation: string; files: number; bytes: string; over_cap: boolean; synced_by: string; synced_at: Date }>(
    'SELECT generation, files, bytes, over_cap, synced_by, synced_at FROM workspace_syncs WHERE session_id = $1',
    [sessionId],
  );
  const row = rows[0];
  return row ? { generation: Number(row.generation), files: row.files, bytes: Number(row.bytes), overCap: row.over_cap, syncedBy: row.synced_by, syncedAt: row.synced_at } : null;
}

export async function listSessionFilePaths(pool: pg.Pool, sessionId: string, kind: SessionFileKind): Promise<string[]> {
  const { rows } = await pool.query<{ path: string }>('SELECT path FROM session_files WHERE session_id = $1 AND kind = $2', [sessionId, kind]);
  return rows.map((row) => row.path);
}

export async function readSessionFiles(pool: pg.Pool, sessionId: string, kind: SessionFileKind): Promise<{ path: string; content: Buffer }[]> {
  const { rows } = await pool.query<{ path: string; content: Buffer }>('SELECT path, content FROM session_files WHERE session_id = $1 AND kind = $2 ORDER BY path', [sessionId, kind]);
  return rows;
}

/**
 * One push: the changed files written, the removed ones deleted, the generation raised — all or
 * nothing, and only under the lease this process holds. The new generation.
 */
export async function saveWorkspace(
  pool: pg.Pool,
  input: { sessionId: string; owner: string; changed: { path: string; content: Buffer }[]; removed: string[]; files: number; bytes: number },
): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ ok: boolean }>(`SELECT ${fenceGuard(2)} AS ok`, [input.sessionId, writeEpoch(input.sessionId)]);
    if (!rows[0]?.ok) throw fencedWrite(input.sessionId);
    if (input.removed.length > 0) {
      await client.query(`DELETE FROM session_files WHERE session_id = $1 AND kind = 'workspace' AND path = ANY($2::text[])`, [input.sessionId, input.removed]);
    }
    for (const file of input.changed) {
      await client.query(
        `INSERT INTO session_files (session_id, kind, path, content, size) VALUES ($1, 'workspace', $2, $3, $4)
         ON CONFLICT (session_id, kind, path) DO UPDATE SET content = excluded.content, size = excluded.size`,
        [input.sessionId, file.path, file.content, file.content.length],
      );
    }
    const saved = await client.query<{ generation: string }>(
      `INSERT INTO workspace_syncs (session_id, generation, files, bytes, over_cap, synced_by, synced_at) VALUES ($1, 1, $2, $3, false, $4, now())
       ON CONFLICT (session_id) DO UPDATE SET generation = workspace_syncs.generation + 1, files = excluded.files, bytes = excluded.bytes,
         over_cap = false, synced_by = excluded.synced_by, synced_at = now()
       RETURNING generation`,
      [input.sessionId, input.files, input.bytes, input.owner],
    );
    await client.query('COMMIT');
    return Number(saved.rows[0]!.generation);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The workspace outgrew the cap: noted (for the UI), its last copy within the cap kept. */
export async function markWorkspaceOverCap(pool: pg.Pool, input: { sessionId: string; owner: string; files: number; bytes: number }): Promise<void> {
  await pool.query(
    `INSERT INTO workspace_syncs (session_id, generation, files, bytes, over_cap, synced_by) VALUES ($1, 0, $2, $3, true, $4)
     ON CONFLICT (session_id) DO UPDATE SET files = excluded.files, bytes = excluded.bytes, over_cap = true, synced_by = excluded.synced_by, synced_at = now()`,
    [input.sessionId, input.files, input.bytes, input.owner],
  );
}

/** The persona snapshot a session started with, kept with it (PostgreSQL only; a no-op on SQLite). */
export async function storePersonaSnapshot(sessionId: string, content: Buffer): Promise<void> {
  const pool = await sessionFilesPool();
  if (!pool) return;
  await pool.query(
    `INSERT INTO session_files (session_id, kind, path, content, size) VALUES ($1, 'persona', 'persona_core_snapshot.md', $2, $3)
     ON CONFLICT (session_id, kind, path) DO UPDATE SET content = excluded.content, size = excluded.size`,
    [sessionId, content, content.length],
  );
}

export async function loadPersonaSnapshot(sessionId: string): Promise<Buffer | null> {
  const pool = await sessionFilesPool();
  if (!pool) return null;
  const { rows } = await pool.query<{ content: Buffer }>(`SELECT content FROM session_files WHERE session_id = $1 AND kind = 'persona'`, [sessionId]);
  return rows[0]?.content ?? null;
}
