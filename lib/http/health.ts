// What /api/health answers (issue 73 §3–4: it said ok with the database down and the disk full).
// The database is asked with a short deadline; the data folder's disk is read for its free space.
// Healthy: 200 `{ ok: true, … }`; otherwise 503 with what is down, in words, so a supervisor, a load
// balancer and a person reading it all see the same thing.
import fs from 'node:fs';
import path from 'node:path';
import { appPaths } from '@/lib/config/env';
import { errorText } from '@/lib/errors/error-text';
import { getDb } from '@/lib/store/db';
import { STORE_FAULT_WORDS, storeFault } from '@/lib/store/store-faults';

/** Below this much free space on the data folder's disk, the disk counts as full (a write may fail at any moment). */
export const DISK_FULL_BELOW_BYTES = 16 * 1024 * 1024;
const DATABASE_DEADLINE_MS = 3_000;

export interface HealthReport {
  ok: boolean;
  database: 'ok' | 'unreachable' | 'disk_full' | 'failing';
  disk: 'ok' | 'full';
  disk_free_bytes: number | null;
  problems: string[];
  worker?: string;
}

async function databaseState(): Promise<{ state: HealthReport['database']; problem?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(Object.assign(new Error('the database did not answer within 3 s'), { code: 'ETIMEDOUT' })), DATABASE_DEADLINE_MS)));
    await Promise.race([(async () => (await getDb()).$queryRawUnsafe('SELECT 1'))(), deadline]);
    return { state: 'ok' };
  } catch (error) {
    const fault = storeFault(error);
    return fault ? { state: fault, problem: STORE_FAULT_WORDS[fault] } : { state: 'failing', problem: `The database fails: ${errorText(error).split('\n')[0]}` };
  } finally {
    clearTimeout(timer);
  }
}

/** The app's health now; `freeBytes` reads the disk (tests give their own). */
export async function healthReport(options: { freeBytes?: () => number | null; worker?: string } = {}): Promise<HealthReport> {
  const database = await databaseState();
  const free = (options.freeBytes ?? dataDiskFree)();
  const disk = free !== null && free < DISK_FULL_BELOW_BYTES ? 'full' : 'ok';
  const problems = [...(database.problem ? [database.problem] : []), ...(disk === 'full' && database.state !== 'disk_full' ? [STORE_FAULT_WORDS.disk_full] : [])];
  return { ok: problems.length === 0, database: database.state, disk, disk_free_bytes: free, problems, ...(options.worker && { worker: options.worker }) };
}

/** Free bytes on the data folder's disk (for an unprivileged writer), or null when it cannot be read. */
export function dataDiskFree(): number | null {
  // The data folder, or the nearest folder above it that exists (before the first start there is none).
  for (let folder = appPaths().dataDir; ; folder = path.dirname(folder)) {
    try {
      const stats = fs.statfsSync(folder);
      return stats.bavail * stats.bsize;
    } catch {
      if (path.dirname(folder) === folder) return null;
    }
  }
}
