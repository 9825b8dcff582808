// `npm run bench:recall`: the recall section of `npm run bench` alone (issue 49's figures in one run):
// LoCoMo change by change on both stores, the ranking's cost, and recall latency at 10k / 100k.
import { closeDb } from '@/lib/store/db';
import { startPostgres } from '@/test/support/postgres';
import { benchRecallLatency, memoryTables } from './memory';
import { benchRankingCost, benchRecallChanges, recallChangesTable } from './recall-changes';

const quick = process.argv.includes('--quick');
const postgres = await startPostgres();
try {
  console.log('## Recall, change by change: what was said ranked as a conversation (issue 49)\n');
  console.log(recallChangesTable(await benchRecallChanges({ postgresUrl: postgres.url }), await benchRankingCost({ postgresUrl: postgres.url, queries: quick ? 50 : 200, quick })));
  console.log('\n## Recall latency (the default ranking)\n');
  const latency = [
    await benchRecallLatency({ size: 10_000, queries: quick ? 50 : 200 }),
    await benchRecallLatency({ size: 10_000, queries: quick ? 50 : 200, postgresUrl: postgres.url }),
    ...(quick ? [] : [await benchRecallLatency({ size: 100_000, queries: 200 }), await benchRecallLatency({ size: 100_000, queries: 200, postgresUrl: postgres.url })]),
  ];
  console.log(memoryTables({ locomo: null, latency, consolidation: null }).split('\n').filter((line) => !line.startsWith('LoCoMo skipped')).join('\n').trim());
} finally {
  await closeDb();
  await postgres.stop();
}
process.exit(0);
