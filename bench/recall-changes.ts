// Recall, change by change (issue 49): LoCoMo's dev conversations through the product's own import
// and recall with each way of ranking what was said turned on alone, then all together, per
// category; the same on PostgreSQL; and what the ranking costs at 10k and 100k items, measured
// off and on side by side in one run.
import { createLocalEmbedder } from '@/lib/memory/local-embedder';
import type { RecallWeights } from '@/lib/memory/recall';
import { benchLocomo, benchRecallLatency, type LocomoResult, type RecallLatency } from './memory';
import { formatMs, median, percentile } from './stats';

const OFF: Partial<RecallWeights> = { neighbour: 0, speaker: 0, date: 0 };

export const recallChanges: { name: string; weights: Partial<RecallWeights> }[] = [
  { name: 'lexical alone (the store’s BM25 / weighted ts_rank, as before)', weights: OFF },
  { name: '+ neighbouring turns (0.6 of the better one’s score)', weights: { ...OFF, neighbour: 0.6 } },
  { name: '+ the speaker the query names (× 1.3)', weights: { ...OFF, speaker: 0.3 } },
  { name: '+ dates in the query (× 1.6 within, 10 days after)', weights: { ...OFF, date: 0.6 } },
  { name: 'all three (the default)', weights: {} },
];

export interface RecallChange {
  name: string;
  store: 'sqlite' | 'postgres';
  result: LocomoResult;
}

export async function benchRecallChanges(options: { postgresUrl: string }): Promise<RecallChange[]> {
  const rows: RecallChange[] = [];
  for (const change of recallChanges) {
    const result = await benchLocomo({ weights: change.weights });
    if (result) rows.push({ name: change.name, store: 'sqlite', result });
  }
  // Recall by meaning with the model built into the app, fused by score (recall-meaning.ts).
  const builtin = await benchLocomo({ embedder: createLocalEmbedder() });
  if (builtin) rows.push({ name: 'all three + the built-in model by meaning (share 0.3; off by default)', store: 'sqlite', result: builtin });
  for (const change of [recallChanges[0]!, recallChanges.at(-1)!]) {
    const result = await benchLocomo({ weights: change.weights, postgresUrl: options.postgresUrl });
    if (result) rows.push({ name: change.name, store: 'postgres', result });
  }
  return rows;
}

export async function benchRankingCost(options: { postgresUrl: string; queries: number; quick: boolean }): Promise<{ off: RecallLatency; on: RecallLatency }[]> {
  const pairs: { off: RecallLatency; on: RecallLatency }[] = [];
  // The built-in model at 10k items: lexical (the default ranking) beside hybrid, one store, one run.
  if (!options.quick) pairs.push({ off: await benchRecallLatency({ size: 10_000, queries: options.queries }), on: await benchRecallLatency({ size: 10_000, queries: options.queries, embedder: createLocalEmbedder() }) });
  const sizes: { size: number; postgresUrl?: string }[] = [{ size: 10_000 }, { size: 10_000, postgresUrl: options.postgresUrl }, ...(options.quick ? [] : [{ size: 100_000 }])];
  for (const { size, postgresUrl } of sizes) {
    pairs.push({
      off: await benchRecallLatency({ size, queries: options.queries, postgresUrl, weights: OFF }),
      on: await benchRecallLatency({ size, queries: options.queries, postgresUrl }),
    });
  }
  return pairs;
}

const categories = [1, 2, 3, 4, 5];
const pct = (value: number) => value.toFixed(1);

export function recallChangesTable(rows: readonly RecallChange[], costs: readonly { off: RecallLatency; on: RecallLatency }[]): string {
  if (rows.length === 0) return 'LoCoMo skipped: ../shared/data/locomo-dev.json is not there.';
  const lines = [
    `LoCoMo dev (${rows[0]!.result.questions} questions with evidence), recall@5 / recall@10; categories 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (recall@10).`,
    '',
    `| store | ranking of what was said | recall@5 | recall@10 | ${categories.map((category) => `cat ${category}`).join(' | ')} | recall p50 ms |`,
    `|---|---|---|---|${categories.map(() => '---|').join('')}---|`,
  ];
  for (const { name, store, result } of rows) {
    const byCategory = categories.map((category) => {
      const entry = result.byCategory.get(category);
      return entry ? pct((100 * entry.at10) / entry.n) : '–';
    });
    lines.push(`| ${store === 'postgres' ? 'PostgreSQL' : 'SQLite'} | ${name} | ${pct(result.overall.at5)} | ${pct(result.overall.at10)} | ${byCategory.join(' | ')} | ${formatMs(median(result.recallMs))} |`);
  }
  lines.push('', '| stored items | store | change | p50 before → after (ms) | p99 before → after (ms) |', '|---|---|---|---|---|');
  for (const { off, on } of costs) {
    lines.push(
      `| ${off.size.toLocaleString('en-US')} | ${off.store === 'postgres' ? 'PostgreSQL' : 'SQLite'} | ${on.hybrid ? 'default ranking → + the built-in model (query embedded in-process)' : 'lexical alone → the default ranking'} | ${formatMs(median(off.samples))} → **${formatMs(median(on.samples))}** | ${formatMs(percentile(off.samples, 99))} → ${formatMs(percentile(on.samples, 99))} |`,
    );
  }
  return lines.join('\n');
}
