// Daily allowances (issue 48, ARCHITECTURE §24). Every model call reserves its worst case on each
// allowance that applies (the app's, its session's persona's, each of its people's) before it
// starts, and settles what it really cost after. A reservation is a conditional update of the
// day's row — `spent + reserved + worst ≤ limit` — inside one transaction for all the allowances
// of the call: on SQLite a write transaction (one writer at a time), on PostgreSQL row locks in
// allowance-id order, the condition re-checked on the locked row; either way two calls, in one
// process or several, cannot both take the last of an allowance. A day is the allowance's own
// local calendar day (Intl, so a DST change gives a 23- or 25-hour day, never a missed reset).
import { getStore } from './db';
import { rawDb, rawWrite, sqliteDate, statement } from './raw-db';
import { pgDate, pgRaw } from './pg-raw';
import { processSlot } from '@/lib/process/process-state';

export type AllowanceScope = 'app' | 'persona' | 'person';

export interface AllowanceRecord {
  id: string;
  scope: AllowanceScope;
  /** '' for the app; the persona's name; the person's id. */
  scopeId: string;
  usdPerDay: number | null;
  tokensPerDay: number | null;
  timeZone: string;
}

/** What one call holds on each allowance until it settles. */
export interface Reservation {
  parts: { allowanceId: string; day: string }[];
  usd: number;
  tokens: number;
}

export interface AllowanceRefusal {
  allowance: AllowanceRecord;
  day: string;
  /** Which limit the worst case would pass. */
  unit: 'usd' | 'tokens';
  spent: number;
  reserved: number;
  limit: number;
}

export interface DayFigures {
  allowance: AllowanceRecord;
  day: string;
  spentUsd: number;
  reservedUsd: number;
  spentTokens: number;
  reservedTokens: number;
  noticedAt: Date | null;
}

const dayFormats = processSlot('store.day-formats', () => new Map<string, Intl.DateTimeFormat>()).value;

/** The calendar day (YYYY-MM-DD) it is at `now` in `timeZone`. */
export function localDay(now: Date, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) dayFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(now);
}

type Row = { id: string; scope: string; scope_id: string; usd_per_day: number | null; tokens_per_day: number | null; time_zone: string };
const toRecord = (row: Row): AllowanceRecord => ({ id: row.id, scope: row.scope as AllowanceScope, scopeId: row.scope_id, usdPerDay: row.usd_per_day, tokensPerDay: row.tokens_per_day, timeZone: row.time_zone });
const COLUMNS = 'id, scope, scope_id, usd_per_day, tokens_per_day, time_zone';

export async function listAllowances(): Promise<AllowanceRecord[]> {
  const store = await getStore();
  if (store.kind === 'postgres') return (await pgRaw(store.url).query<Row>(`SELECT ${COLUMNS} FROM allowances ORDER BY scope, scope_id`)).rows.map(toRecord);
  return (statement(rawDb(), `SELECT ${COLUMNS} FROM allowances ORDER BY scope, scope_id`).all() as Row[]).map(toRecord);
}

/** The allowances a call of this session answers to: the app's, its persona's, its people's. */
export async function allowancesForSession(sessionId: string): Promise<AllowanceRecord[]> {
  const store = await getStore();
  const where = `scope = 'app' OR (scope = 'persona' AND scope_id = (SELECT persona_name FROM sessions WHERE id = $1)) OR (scope = 'person' AND scope_id IN (SELECT person_id FROM session_people WHERE session_id = $1))`;
  if (store.kind === 'postgres') return (await pgRaw(store.url).query<Row>({ name: 'agentcsd_allowances_for_session', text: `SELECT ${COLUMNS} FROM allowances WHERE ${where} ORDER BY id`, values: [sessionId] })).rows.map(toRecord);
  return (statement(rawDb(), `SELECT ${COLUMNS} FROM allowances WHERE ${where.replaceAll('$1', '@session')} ORDER BY id`).all({ session: sessionId }) as Row[]).map(toRecord);
}

/** The allowances work of a persona outside any conversation answers to (indexing its memories): the app's and the persona's. */
export async function allowancesForPersonas(personaNames: readonly string[]): Promise<AllowanceRecord[]> {
  const names = [...new Set(personaNames)];
  return (await listAllowances()).filter((allowance) => allowance.scope === 'app' || (allowance.scope === 'persona' && names.includes(allowance.scopeId)));
}

/** Replaces every allowance (Settings saves the list whole); days of the ones kept stay. */
export async function replaceAllowances(list: readonly AllowanceRecord[], now: Date): Promise<void> {
  const store = await getStore();
  const ids = list.map((allowance) => allowance.id);
  if (store.kind === 'postgres') {
    const client = await pgRaw(store.url).connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM allowances WHERE NOT (id = ANY($1::text[]))', [ids]);
      for (const allowance of list) {
        await client.query(
          `INSERT INTO allowances (${COLUMNS}, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
           ON CONFLICT (id) DO UPDATE SET usd_per_day = $4, tokens_per_day = $5, time_zone = $6, updated_at = $7`,
          [allowance.id, allowance.scope, allowance.scopeId, allowance.usdPerDay, allowance.tokensPerDay, allowance.timeZone, pgDate(now)],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
    return;
  }
  const raw = rawDb();
  await rawWrite(raw.database.transaction(() => {
    const keep = new Set(ids);
    for (const row of statement(raw, 'SELECT id FROM allowances').all() as { id: string }[]) if (!keep.has(row.id)) statement(raw, 'DELETE FROM allowances WHERE id = ?').run(row.id);
    const upsert = statement(
      raw,
      `INSERT INTO allowances (${COLUMNS}, created_at, updated_at) VALUES (@id, @scope, @scopeId, @usdPerDay, @tokensPerDay, @timeZone, @now, @now)
       ON CONFLICT (id) DO UPDATE SET usd_per_day = @usdPerDay, tokens_per_day = @tokensPerDay, time_zone = @timeZone, updated_at = @now`,
    );
    for (const allowance of list) upsert.run({ ...allowance, now: sqliteDate(now) });
  }));
}

const RESERVE_SQL = `UPDATE allowance_days SET reserved_usd = reserved_usd + $usd, reserved_tokens = reserved_tokens + $tokens
  WHERE allowance_id = $id AND day = $day
    AND ($usdLimit IS NULL OR spent_usd + reserved_usd + $usd <= $usdLimit + 1e-9)
    AND ($tokensLimit IS NULL OR spent_tokens + reserved_tokens + $tokens <= $tokensLimit)`;

/** The same statements with PostgreSQL's numbered, typed parameters (made once, not per call). */
const RESERVE_PG = RESERVE_SQL.replace(/\$(usd|tokens|id|day|usdLimit|tokensLimit)\b/g, (_match, key: string) => `$${['id', 'day', 'usd', 'tokens', 'usdLimit', 'tokensLimit'].indexOf(key) + 1}${key === 'usd' || key === 'usdLimit' ? '::float8' : key === 'tokens' || key === 'tokensLimit' ? '::int' : ''}`);

/**
 * Reserves `usd` and `tokens` on each allowance's day at `now` — all or none. A refusal names the
 * first allowance whose limit the worst case would pass.
 */
export async function reserve(allowances: readonly AllowanceRecord[], worst: { usd: number; tokens: number }, now: Date): Promise<{ ok: true; reservation: Reservation } | { ok: false; refusal: AllowanceRefusal }> {
  const ordered = [...allowances].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const parts = ordered.map((allowance) => ({ allowanceId: allowance.id, day: localDay(now, allowance.timeZone) }));
  const reservation: Reservation = { parts, usd: worst.usd, tokens: worst.tokens };
  if (ordered.length === 0) return { ok: true, reservation };
  const store = await getStore();
  let failed: number | null = null;
  if (store.kind === 'postgres') {
    const client = await pgRaw(store.url).connect();
    try {
      await client.query('BEGIN');
      for (const [index, allowance] of ordered.entries()) {
        const values = { id: allowance.id, day: parts[index]!.day, usd: worst.usd, tokens: worst.tokens, usdLimit: allowance.usdPerDay, tokensLimit: allowance.tokensPerDay };
        await client.query({ name: 'agentcsd_allowance_day', text: 'INSERT INTO allowance_days (allowance_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING', values: [values.id, values.day] });
        const updated = await client.query({
          name: 'agentcsd_allowance_reserve',
          text: RESERVE_PG,
          values: [values.id, values.day, values.usd, values.tokens, values.usdLimit, values.tokensLimit],
        });
        if (updated.rowCount !== 1) {
          failed = index;
          break;
        }
      }
      await client.query(failed === null ? 'COMMIT' : 'ROLLBACK');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  } else {
    const raw = rawDb();
    const ensure = statement(raw, 'INSERT OR IGNORE INTO allowance_days (allowance_id, day) VALUES (?, ?)');
    const update = statement(raw, RESERVE_SQL.replace(/\$(\w+)/g, '@$1'));
    const run = raw.database.transaction(() => {
      for (const [index, allowance] of ordered.entries()) {
        ensure.run(allowance.id, parts[index]!.day);
        const changed = update.run({ id: allowance.id, day: parts[index]!.day, usd: worst.usd, tokens: worst.tokens, usdLimit: allowance.usdPerDay, tokensLimit: allowance.tokensPerDay }).changes;
        if (changed !== 1) throw new RefusedAt(index);
      }
    });
    try {
      await rawWrite(() => run.immediate());
    } catch (error) {
      if (!(error instanceof RefusedAt)) throw error;
      failed = error.index;
    }
  }
  if (failed === null) return { ok: true, reservation };
  const allowance = ordered[failed]!;
  const [figures] = await dayFigures([allowance], now);
  const usdOver = allowance.usdPerDay !== null && figures!.spentUsd + figures!.reservedUsd + worst.usd > allowance.usdPerDay + 1e-9;
  return {
    ok: false,
    refusal: usdOver
      ? { allowance, day: figures!.day, unit: 'usd', spent: figures!.spentUsd, reserved: figures!.reservedUsd, limit: allowance.usdPerDay! }
      : { allowance, day: figures!.day, unit: 'tokens', spent: figures!.spentTokens, reserved: figures!.reservedTokens, limit: allowance.tokensPerDay ?? 0 },
  };
}

class RefusedAt extends Error {
  constructor(readonly index: number) {
    super('refused');
  }
}

const SETTLE_SQL = `UPDATE allowance_days SET reserved_usd = MAX(reserved_usd - $reservedUsd, 0), reserved_tokens = MAX(reserved_tokens - $reservedTokens, 0), spent_usd = spent_usd + $usd, spent_tokens = spent_tokens + $tokens WHERE allowance_id = $id AND day = $day`;
const SETTLE_PG = SETTLE_SQL.replaceAll('MAX(', 'GREATEST(').replace(/\$(reservedUsd|reservedTokens|usd|tokens|id|day)\b/g, (_match, key: string) => `$${['id', 'day', 'reservedUsd', 'reservedTokens', 'usd', 'tokens'].indexOf(key) + 1}${key === 'id' || key === 'day' ? '' : key.toLowerCase().includes('usd') ? '::float8' : '::int'}`);

/** The call ended: its reservation released, what it really cost spent (on the days it reserved). */
export async function settle(reservation: Reservation, actual: { usd: number; tokens: number }): Promise<void> {
  if (reservation.parts.length === 0) return;
  const store = await getStore();
  if (store.kind === 'postgres') {
    const pool = pgRaw(store.url);
    for (const part of reservation.parts) await pool.query({ name: 'agentcsd_allowance_settle', text: SETTLE_PG, values: [part.allowanceId, part.day, reservation.usd, reservation.tokens, actual.usd, actual.tokens] });
    return;
  }
  const raw = rawDb();
  const update = statement(raw, SETTLE_SQL.replace(/\$(\w+)/g, '@$1'));
  await rawWrite(raw.database.transaction(() => {
    for (const part of reservation.parts) update.run({ id: part.allowanceId, day: part.day, reservedUsd: reservation.usd, reservedTokens: reservation.tokens, usd: actual.usd, tokens: actual.tokens });
  }));
}

/** Each allowance's figures for its day at `now` (zeros for a day nothing touched yet). */
export async function dayFigures(allowances: readonly AllowanceRecord[], now: Date): Promise<DayFigures[]> {
  const store = await getStore();
  const out: DayFigures[] = [];
  for (const allowance of allowances) {
    const day = localDay(now, allowance.timeZone);
    type DayRow = { reserved_usd: number; spent_usd: number; reserved_tokens: number; spent_tokens: number; noticed_at: string | Date | null };
    const row: DayRow | undefined =
      store.kind === 'postgres'
        ? (await pgRaw(store.url).query<DayRow>('SELECT reserved_usd, spent_usd, reserved_tokens, spent_tokens, noticed_at FROM allowance_days WHERE allowance_id = $1 AND day = $2', [allowance.id, day])).rows[0]
        : (statement(rawDb(), 'SELECT reserved_usd, spent_usd, reserved_tokens, spent_tokens, noticed_at FROM allowance_days WHERE allowance_id = ? AND day = ?').get(allowance.id, day) as DayRow | undefined);
    out.push({ allowance, day, spentUsd: row?.spent_usd ?? 0, reservedUsd: row?.reserved_usd ?? 0, spentTokens: row?.spent_tokens ?? 0, reservedTokens: row?.reserved_tokens ?? 0, noticedAt: row?.noticed_at ? new Date(row.noticed_at) : null });
  }
  return out;
}

/** Claims the day's 80% notice for an allowance: true once per day (compare-and-set), false after. */
export async function claimNotice(allowanceId: string, day: string, now: Date): Promise<boolean> {
  const store = await getStore();
  if (store.kind === 'postgres') return (await pgRaw(store.url).query('UPDATE allowance_days SET noticed_at = $3 WHERE allowance_id = $1 AND day = $2 AND noticed_at IS NULL', [allowanceId, day, pgDate(now)])).rowCount === 1;
  return statement(rawDb(), 'UPDATE allowance_days SET noticed_at = ? WHERE allowance_id = ? AND day = ? AND noticed_at IS NULL').run(sqliteDate(now), allowanceId, day).changes === 1;
}
