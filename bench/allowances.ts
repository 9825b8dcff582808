// The allowance check per model call (issue 48): a session of a persona with one person, three
// allowances that apply (the app's, the persona's, the person's) and 20 that do not; per call, what
// the model boundary adds — finding the allowances, reserving the worst case on all three in one
// transaction, and settling after. Timed alone, p50/p99 over the calls, on SQLite and PostgreSQL.
import crypto from 'node:crypto';
import { holdAllowance, settleAllowance, actualCost } from '@/lib/mind/allowance-guard';
import { replaceAllowances, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { addSessionPeople, personForSender } from '@/lib/store/people-repository';
import { freshStore, pausedSessions } from './memory';
import { formatMs, median, percentile } from './stats';

export interface AllowancesResult {
  store: 'sqlite' | 'postgres';
  hold: number[];
  settle: number[];
  none: number[];
}

export async function benchAllowances(options: { calls: number; postgresUrl?: string }): Promise<AllowancesResult> {
  const done = await freshStore(options.postgresUrl);
  const [session, bare] = await pausedSessions('iris', 2);
  const person = await personForSender({ sender: `telegram:${crypto.randomInt(1e9)}`, name: 'Ana', role: 'trusted' });
  await addSessionPeople(session!, [person.id]);
  const others: AllowanceRecord[] = Array.from({ length: 20 }, (_, index) => ({ id: `persona:other-${index}`, scope: 'persona', scopeId: `other-${index}`, usdPerDay: 1, tokensPerDay: null, timeZone: 'UTC' }));
  await replaceAllowances(
    [
      { id: 'app:', scope: 'app', scopeId: '', usdPerDay: 1_000, tokensPerDay: null, timeZone: 'Europe/Madrid' },
      { id: 'persona:iris', scope: 'persona', scopeId: 'iris', usdPerDay: null, tokensPerDay: 1e9, timeZone: 'UTC' },
      { id: `person:${person.id}`, scope: 'person', scopeId: person.id, usdPerDay: 500, tokensPerDay: 1e9, timeZone: 'America/New_York' },
      ...others,
    ],
    new Date(),
  );
  const request = { model: 'claude-haiku-4-5', maxTokens: 1_024, system: [{ text: 'You are the Internal Dialog. '.repeat(200) }], messages: [{ role: 'user' as const, content: 'Hello there.' }] };
  const usage = { inputTokens: 1_400, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0024 };
  const result: AllowancesResult = { store: options.postgresUrl ? 'postgres' : 'sqlite', hold: [], settle: [], none: [] };
  for (let index = 0; index < options.calls + 20; index++) {
    let begun = performance.now();
    const held = await holdAllowance(session!, request, new Date());
    const hold = performance.now() - begun;
    if (!held.ok) throw new Error(held.message);
    begun = performance.now();
    await settleAllowance(held.reservation, actualCost(usage));
    const settle = performance.now() - begun;
    begun = performance.now();
    await holdAllowance(bare!, request, new Date()); // a session only the app's allowance covers
    const none = performance.now() - begun;
    if (index < 20) continue; // warm-up
    result.hold.push(hold);
    result.settle.push(settle);
    result.none.push(none);
  }
  await done();
  return result;
}

export function allowancesTable(results: AllowancesResult[]): string {
  const cell = (samples: number[]) => `${formatMs(median(samples))} / ${formatMs(percentile(samples, 99))}`;
  return [
    '| store | calls | check and reserve (3 allowances) p50 / p99 ms | settle p50 / p99 ms | together p50 ms | a session the app alone covers, check and reserve p50 / p99 ms |',
    '| --- | --- | --- | --- | --- | --- |',
    ...results.map((result) => `| ${result.store} | ${result.hold.length} | ${cell(result.hold)} | ${cell(result.settle)} | ${formatMs(median(result.hold.map((hold, index) => hold + result.settle[index]!)))} | ${cell(result.none)} |`),
  ].join('\n');
}
