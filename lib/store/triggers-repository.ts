// Schedules and webhooks as rows (issue 29, ARCHITECTURE §16). A slot is claimed by
// compare-and-set on next_fire_at: of any number of processes (or a retry after a crash) exactly
// one moves a schedule past a slot, and only that one fires it. A hook's delivery id is unique per
// hook: the same delivery again is recognised, not run.
import { getDb, getStore } from './db';

export type ScheduleAction = { kind: 'message'; text: string } | { kind: 'task'; goal: string; constraints?: Record<string, unknown> };
export type HookAction = { kind: 'message'; text?: string } | { kind: 'task'; goal: string; constraints?: Record<string, unknown> };

export interface ScheduleRecord {
  id: string;
  sessionId: string;
  name: string;
  kind: 'once' | 'cron';
  expression: string;
  timeZone: string;
  action: ScheduleAction;
  catchUp: 'once' | 'skip';
  createdBy: 'user' | 'agent';
  state: 'active' | 'paused' | 'done';
  nextFireAt: Date | null;
  lastFireAt: Date | null;
  lastResult: string | null;
  failures: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface HookRecord {
  id: string;
  sessionId: string;
  name: string;
  secret: string;
  action: HookAction;
  enabled: boolean;
  createdAt: Date;
}

/** A transaction's client (or the client itself): what a write inside withinScheduleCap runs on. */
type Tx = Parameters<Parameters<Awaited<ReturnType<typeof getDb>>['$transaction']>[0]>[0];
type ScheduleRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['schedule']['findUniqueOrThrow']>>;
type HookRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['hook']['findUniqueOrThrow']>>;

const scheduleRecord = (row: ScheduleRow): ScheduleRecord => ({
  ...row,
  kind: row.kind as ScheduleRecord['kind'],
  action: JSON.parse(row.action) as ScheduleAction,
  catchUp: row.catchUp as ScheduleRecord['catchUp'],
  createdBy: row.createdBy as ScheduleRecord['createdBy'],
  state: row.state as ScheduleRecord['state'],
});
const hookRecord = (row: HookRow): HookRecord => ({ ...row, action: JSON.parse(row.action) as HookAction });

export async function insertSchedule(input: Omit<ScheduleRecord, 'lastFireAt' | 'lastResult' | 'failures' | 'createdAt' | 'updatedAt' | 'state'> & { state?: ScheduleRecord['state'] }): Promise<ScheduleRecord> {
  const row = await (await getDb()).schedule.create({ data: { ...input, action: JSON.stringify(input.action) } });
  return scheduleRecord(row);
}

export async function findSchedule(id: string): Promise<ScheduleRecord | null> {
  const row = await (await getDb()).schedule.findUnique({ where: { id } });
  return row ? scheduleRecord(row) : null;
}

export async function listSchedules(where: { sessionId?: string; states?: ScheduleRecord['state'][] } = {}): Promise<ScheduleRecord[]> {
  const rows = await (await getDb()).schedule.findMany({
    where: { ...(where.sessionId && { sessionId: where.sessionId }), ...(where.states && { state: { in: where.states } }) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map(scheduleRecord);
}

/**
 * Runs `write` only while the persona has fewer than `cap` active schedules, the count and the
 * write in one transaction that holds the persona's lock (issue 41 §6: counted, then inserted, 45
 * parallel requests made 45 rows on PostgreSQL). PostgreSQL: a transaction-level advisory lock on
 * the persona, which holds across processes; SQLite: one process owns the file (data-folder-lock)
 * and Prisma runs its transactions one at a time. Null when the cap is reached.
 */
export async function withinScheduleCap<T>(persona: string, cap: number, write: (tx: Tx) => Promise<T>): Promise<T | null> {
  const [store, db] = await Promise.all([getStore(), getDb()]);
  return db.$transaction(async (tx) => {
    if (store.kind === 'postgres') await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`agentcsd:schedules:${persona}`}, 0))`;
    const active = await tx.schedule.count({ where: { state: 'active', session: { personaName: persona } } });
    return active >= cap ? null : write(tx);
  });
}

/** A new schedule, if the persona has room for one more active schedule. */
export async function insertScheduleWithinCap(
  input: Parameters<typeof insertSchedule>[0],
  limit: { persona: string; cap: number },
): Promise<ScheduleRecord | null> {
  const row = await withinScheduleCap(limit.persona, limit.cap, (tx) => tx.schedule.create({ data: { ...input, action: JSON.stringify(input.action) } }));
  return row && scheduleRecord(row);
}

/** The earliest slot due among active schedules, or null. */
export async function nextDueAt(): Promise<Date | null> {
  const row = await (await getDb()).schedule.findFirst({ where: { state: 'active', nextFireAt: { not: null } }, orderBy: { nextFireAt: 'asc' }, select: { nextFireAt: true } });
  return row?.nextFireAt ?? null;
}

export async function dueSchedules(now: Date, limit = 100): Promise<ScheduleRecord[]> {
  const rows = await (await getDb()).schedule.findMany({ where: { state: 'active', nextFireAt: { lte: now } }, orderBy: { nextFireAt: 'asc' }, take: limit });
  return rows.map(scheduleRecord);
}

/**
 * Claims the slot `slot` of the schedule: moves next_fire_at to `next` (null: done) only if it is
 * still `slot` and the schedule active. True for exactly one caller per slot.
 */
export async function claimSlot(input: { id: string; slot: Date; next: Date | null; firedAt: Date; note: string }): Promise<boolean> {
  const { count } = await (await getDb()).schedule.updateMany({
    where: { id: input.id, state: 'active', nextFireAt: input.slot },
    data: { nextFireAt: input.next, lastFireAt: input.firedAt, lastResult: input.note, updatedAt: input.firedAt, ...(input.next === null && { state: 'done' }) },
  });
  return count === 1;
}

export async function updateSchedule(
  id: string,
  patch: Partial<Pick<ScheduleRecord, 'state' | 'nextFireAt' | 'lastResult' | 'failures' | 'name' | 'expression' | 'timeZone' | 'action' | 'catchUp'>>,
  /** Resuming: only while the persona has room for one more active schedule (else 'cap'). */
  limit?: { persona: string; cap: number },
): Promise<ScheduleRecord | null | 'cap'> {
  const { action, ...rest } = patch;
  const write = (db: Tx) => db.schedule.updateMany({ where: { id }, data: { ...rest, ...(action && { action: JSON.stringify(action) }), updatedAt: new Date() } });
  const written = limit ? await withinScheduleCap(limit.persona, limit.cap, write) : await write(await getDb());
  if (!written) return 'cap';
  return written.count === 1 ? findSchedule(id) : null;
}

export async function deleteSchedule(id: string): Promise<boolean> {
  return (await (await getDb()).schedule.deleteMany({ where: { id } })).count > 0;
}

// ── Hooks ──────────────────────────────────────────────────────────────────────────────────

export async function insertHook(input: Omit<HookRecord, 'createdAt' | 'enabled'> & { enabled?: boolean }): Promise<HookRecord> {
  return hookRecord(await (await getDb()).hook.create({ data: { ...input, action: JSON.stringify(input.action) } }));
}

export async function findHook(id: string): Promise<HookRecord | null> {
  const row = await (await getDb()).hook.findUnique({ where: { id } });
  return row ? hookRecord(row) : null;
}

export async function listHooks(sessionId: string): Promise<HookRecord[]> {
  return (await (await getDb()).hook.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' } })).map(hookRecord);
}

export async function updateHook(id: string, patch: { enabled?: boolean; name?: string }): Promise<HookRecord | null> {
  const { count } = await (await getDb()).hook.updateMany({ where: { id }, data: patch });
  return count === 1 ? findHook(id) : null;
}

export async function deleteHook(id: string): Promise<boolean> {
  return (await (await getDb()).hook.deleteMany({ where: { id } })).count > 0;
}

/** Records a delivery once: false when this hook already took this delivery id. */
export async function recordDelivery(hookId: string, deliveryId: string): Promise<boolean> {
  try {
    await (await getDb()).hookDelivery.create({ data: { hookId, deliveryId } });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') return false; // unique violation: seen before
    throw error;
  }
}

/** A schedule as answers and events show it. */
export function scheduleJson(schedule: ScheduleRecord) {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    id: schedule.id,
    session_id: schedule.sessionId,
    name: schedule.name,
    kind: schedule.kind,
    expression: schedule.expression,
    time_zone: schedule.timeZone,
    action: schedule.action,
    catch_up: schedule.catchUp,
    created_by: schedule.createdBy,
    state: schedule.state,
    next_fire_at: iso(schedule.nextFireAt),
    last_fire_at: iso(schedule.lastFireAt),
    last_result: schedule.lastResult,
    failures: schedule.failures,
    created_at: schedule.createdAt.toISOString(),
  };
}
export type ScheduleJson = ReturnType<typeof scheduleJson>;
