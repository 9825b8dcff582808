// A second process racing for the same daily allowance (issue 48): `count` calls at once, each
// reserving `tokens` and settling what it reserved, on the store of AGENTCSD_DATABASE_URL (or the
// SQLite file of AGENTCSD_DATA_DIR); prints how many were let through. Run by
// test/allowances/allowance-store.test.ts beside its own calls.
import { closeDb, getDb } from '@/lib/store/db';
import { listAllowances, reserve, settle } from '@/lib/store/allowances-repository';

const [count, tokens] = process.argv.slice(2).map(Number);
await getDb();
const allowances = await listAllowances();
const outcomes = await Promise.all(
  Array.from({ length: count! }, async () => {
    const held = await reserve(allowances, { usd: 0, tokens: tokens! }, new Date());
    if (!held.ok) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5)); // the model call
    await settle(held.reservation, { usd: 0, tokens: tokens! });
    return true;
  }),
);
process.stdout.write(JSON.stringify({ through: outcomes.filter(Boolean).length }));
await closeDb();
