// On PostgreSQL the llm_calls rows are written behind the turn (issue 31 §3): a model call's row is
// accounting, not a commit point of the turn — nothing on the turn's path reads it — so rows are
// queued and written together, one multi-row statement per batch, a moment later. A reader in this
// process (usage totals, an export, a task's trace) flushes first; closing the store flushes; a
// crash can lose the rows of the last few milliseconds (their cost was already shown live).
import pg from 'pg';
import { pgDate, pgRaw } from './pg-raw';
import { processSlot } from '@/lib/process/process-state';

export interface LlmCallRow {
  /** null: a call of no conversation (indexing embeddings). */
  sessionId: string | null;
  layer: string;
  backend: string;
  model: string;
  startedAt: Date;
  firstTokenMs: number | null;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
  finishReason: string | null;
  error: string | null;
  traceId: string | null;
}

interface Queue {
  url: string;
  rows: LlmCallRow[];
  timer: NodeJS.Timeout | null;
  writing: Promise<void>;
}

const queueSlot = processSlot<Queue | undefined>('store.llm-calls', () => undefined);
const BATCH_MS = 20;

export function queueLlmCall(url: string, row: LlmCallRow): void {
  const queue = (queueSlot.value ??= { url, rows: [], timer: null, writing: Promise.resolve() });
  if (queue.url !== url) void flushLlmCalls();
  queue.url = url;
  queue.rows.push(row);
  queue.timer ??= setTimeout(() => void flushLlmCalls(), BATCH_MS);
}

/** Writes what is queued (one statement); resolves when it and every earlier batch are written. */
export function flushLlmCalls(): Promise<void> {
  const queue = queueSlot.value;
  if (!queue) return Promise.resolve();
  if (queue.timer) clearTimeout(queue.timer);
  queue.timer = null;
  const rows = queue.rows.splice(0);
  const url = queue.url;
  queue.writing = queue.writing.then(() => (rows.length > 0 ? write(pgRaw(url), rows) : undefined));
  return queue.writing;
}

async function write(pool: pg.Pool, rows: LlmCallRow[]): Promise<void> {
  const column = <K extends keyof LlmCallRow>(key: K) => rows.map((row) => row[key]);
  try {
    await pool.query({
      name: 'agentcsd_insert_llm_calls',
      text: `INSERT INTO llm_calls (session_id, layer, backend, model, started_at, first_token_ms, duration_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, finish_reason, error, trace_id)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp(3)[], $6::int[], $7::int[], $8::int[], $9::int[], $10::int[], $11::int[], $12::float8[], $13::text[], $14::text[], $15::text[])`,
      values: [
        column('sessionId'), column('layer'), column('backend'), column('model'), rows.map((row) => pgDate(row.startedAt)), column('firstTokenMs'), column('durationMs'),
        column('inputTokens'), column('outputTokens'), column('cacheReadTokens'), column('cacheWriteTokens'), column('costUsd'), column('finishReason'), column('error'), column('traceId'),
      ],
    });
  } catch (error) {
    // A session deleted meanwhile (its rows' foreign key) or the server gone: accounting only, said and dropped.
    console.error(`[store] ${rows.length} model-call row(s) could not be written`, error instanceof Error ? error.message : error);
  }
}
