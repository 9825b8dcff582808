// Runs across versions (issue 60 §2). DBOS recovers, and `adopt` moves, only runs stamped with the
// version of the process doing it; a run of a version that no live process runs would wait for
// ever. Here such a run is restamped with the running version — at its last finished step: DBOS
// replays a run from its journal, so finished steps return what they returned and never run again
// (a tool call that succeeded is not repeated) — by one conditional update, so one process takes it
// across the cluster. A run whose workflow this version no longer has cannot continue: it is ended
// as an error with the reason, for its owner (the task service) to say so.
import pg from 'pg';
import { quietClient } from '@/lib/store/pg-errors';
import type { CarriedRun } from './execution-engine';

const NOW_MS = `(EXTRACT(EPOCH FROM now()) * 1000)::bigint`;

/** The reason a run cannot continue in this version. */
export const goneReason = (name: string, from: string, to: string) => `it was started by version ${from}, and this version (${to}) has no workflow "${name}" to continue it`;

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = quietClient(new pg.Client({ connectionString: url }));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * One process alone (no cluster): before DBOS recovers this executor's pending runs, those of
 * another version (its last start ran other code) become this version's, or end when their
 * workflow is gone. Nothing else runs under this executor's name while it starts.
 */
export function carryOwnRuns(url: string, input: { executor: string; version: string; names: readonly string[] }): Promise<CarriedRun[]> {
  return withClient(url, (client) => restamp(client, { where: `executor_id = $1 AND status = 'PENDING'`, params: [input.executor], version: input.version, names: input.names })).catch(noRunsYet);
}

/** A database DBOS has not set up yet (no database, no schema, no table) has no runs. */
export function noRunsYet(error: unknown): never[] {
  if (['42P01', '3F000', '3D000'].includes((error as { code?: string }).code ?? '')) return [];
  throw error;
}

/**
 * The executors whose runs a sweep leaves alone: this process's own (they run here) and each live
 * member's. Not their parked ones: parked runs run nowhere, and the runs a sweep asks for are of
 * sessions this process holds — a member that parked one at its restart and holds the session no
 * more never takes it back (its launch's park and another's takeover can cross; a task stayed
 * `running` for ever so).
 */
export function runningElsewhere(self: string, liveMembers: readonly string[]): string[] {
  return [self, ...liveMembers.filter((member) => member !== self)];
}

/**
 * The update adopt makes: the runs of `executors` (dead processes, or parked ones) — or, with
 * `notExecutors`, of every executor but those (the live members) — of this version or of one no
 * live member runs, put on `queue` under `executor`; those of an old version restamped, those whose
 * workflow is gone ended. `liveVersions` null: only this version's.
 */
export function adoptRuns(
  url: string,
  input: { queue: string; executor: string; executors: readonly string[]; notExecutors: readonly string[] | null; version: string; liveVersions: readonly string[] | null; names: readonly string[]; ids: readonly string[] | null; prefixes: readonly string[] },
): Promise<{ moved: string[]; carried: CarriedRun[] }> {
  return withClient(url, async (client) => {
    const others = input.liveVersions ? input.liveVersions.filter((version) => version !== input.version) : null;
    const rows = await restamp(client, {
      where: `status IN ('PENDING', 'ENQUEUED') AND (executor_id = ANY($1) OR ($6::text[] IS NOT NULL AND NOT (COALESCE(executor_id, '') = ANY($6::text[]))))
              AND (application_version = $2 OR ($3::text[] IS NOT NULL AND NOT (COALESCE(application_version, '') = ANY($3::text[]))))
              AND ($4::text[] IS NULL OR workflow_uuid = ANY($4::text[]) OR workflow_uuid LIKE ANY($5::text[]))`,
      params: [input.executors, input.version, others, input.ids, input.prefixes.map((prefix) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`), input.notExecutors],
      enqueue: { queue: input.queue, executor: input.executor },
      version: input.version,
      names: input.names,
      includeSameVersion: true,
    });
    return { moved: rows.filter((row) => !row.gone).map((row) => row.runId), carried: rows.filter((row) => row.gone || row.from !== input.version) };
  });
}

/** Locks the runs `where` picks, moves those whose workflow exists onto `version` (onto `enqueue`'s queue too), ends the others; what was done. */
async function restamp(
  client: pg.Client,
  input: { where: string; params: unknown[]; enqueue?: { queue: string; executor: string }; version: string; names: readonly string[]; includeSameVersion?: boolean },
): Promise<CarriedRun[]> {
  const n = input.params.length;
  await client.query('BEGIN');
  try {
    const picked = await client.query<{ workflow_uuid: string; name: string; application_version: string | null }>(
      `SELECT workflow_uuid, name, application_version FROM dbos.workflow_status
        WHERE ${input.where} ${input.includeSameVersion ? '' : `AND application_version IS DISTINCT FROM $${n + 1}`}
        FOR UPDATE SKIP LOCKED`,
      input.includeSameVersion ? input.params : [...input.params, input.version],
    );
    const known = new Set(input.names);
    const carried: CarriedRun[] = [];
    for (const row of picked.rows) {
      const from = row.application_version ?? 'unknown';
      if (known.has(row.name)) {
        if (input.enqueue) {
          await client.query(
            `UPDATE dbos.workflow_status SET application_version = $2, status = 'ENQUEUED', queue_name = $3, executor_id = $4, started_at_epoch_ms = NULL, owner_xid = NULL, updated_at = ${NOW_MS} WHERE workflow_uuid = $1`,
            [row.workflow_uuid, input.version, input.enqueue.queue, input.enqueue.executor],
          );
        } else await client.query(`UPDATE dbos.workflow_status SET application_version = $2, updated_at = ${NOW_MS} WHERE workflow_uuid = $1`, [row.workflow_uuid, input.version]);
        carried.push({ runId: row.workflow_uuid, name: row.name, from, to: input.version });
      } else {
        const reason = goneReason(row.name, from, input.version);
        await client.query(`UPDATE dbos.workflow_status SET status = 'ERROR', error = $2, updated_at = ${NOW_MS} WHERE workflow_uuid = $1`, [row.workflow_uuid, JSON.stringify({ name: 'Error', message: reason })]);
        carried.push({ runId: row.workflow_uuid, name: row.name, from, to: input.version, gone: reason });
      }
    }
    await client.query('COMMIT');
    return carried;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Unfinished runs stamped with another version than `version`: what the Cluster page shows as waiting. */
export function runsOfOtherVersions(url: string, version: string): Promise<{ runId: string; name: string; version: string; executor: string }[]> {
  return withClient(url, async (client) => {
    const rows = await client.query<{ workflow_uuid: string; name: string; application_version: string | null; executor_id: string | null }>(
      `SELECT workflow_uuid, name, application_version, executor_id FROM dbos.workflow_status
        WHERE status IN ('PENDING', 'ENQUEUED') AND application_version IS DISTINCT FROM $1 ORDER BY created_at LIMIT 100`,
      [version],
    );
    return rows.rows.map((row) => ({ runId: row.workflow_uuid, name: row.name, version: row.application_version ?? 'unknown', executor: row.executor_id ?? '' }));
  }).catch(noRunsYet);
}
