// A statement written in the SQL both databases speak, run on whichever holds the store: `?`
// placeholders ($1, $2… on PostgreSQL), prepared once on SQLite (raw-db.ts); counts come back as
// numbers on both. Only for values both drivers pass alike (text, numbers, bytes): dates and
// booleans differ, so statements with those use the model API or a path per database.
import { getStore } from './db';
import { rawDb, statement } from './raw-db';

export type SqlValue = string | number | null | Uint8Array;

function dollarPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

function numbersNotBigints<Row>(row: Row): Row {
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    if (typeof value === 'bigint') (row as Record<string, unknown>)[key] = Number(value);
  }
  return row;
}

export async function sqlRows<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
  const store = await getStore();
  if (store.kind === 'sqlite') return statement(rawDb(), sql).all(...params) as Row[];
  const rows = await store.db.$queryRawUnsafe<Row[]>(dollarPlaceholders(sql), ...params);
  return rows.map(numbersNotBigints);
}

/** Runs a write; how many rows it changed. */
export async function sqlRun(sql: string, params: readonly SqlValue[] = []): Promise<number> {
  const store = await getStore();
  if (store.kind === 'sqlite') return statement(rawDb(), sql).run(...params).changes;
  return store.db.$executeRawUnsafe(dollarPlaceholders(sql), ...params);
}
