// Issue 27 §3: the prompt-caching table printed `memory ()` and `$NaN` for the consolidation's
// calls, which made every total NaN. Each layer names the model its calls reported and prices it,
// or says the price is unknown; totals add what is priced and say what is not.
import { expect, it } from 'vitest';
import { cacheTable, type CacheRun } from '@/bench/prompt-cache';

const layer = (model: string) => ({ calls: 10, input: 1_000, cacheRead: 9_000, cacheWrite: 500, output: 300, model });

it('names every layer’s model and never prints NaN', () => {
  const run: CacheRun = {
    label: 'mixed',
    byLayer: { internal: layer('claude-sonnet-5-5'), subconscious: layer('claude-haiku-5-5'), memory: layer('qwen3:8b'), summary: layer('') },
  };
  const table = cacheTable([run]);
  expect(table).not.toMatch(/NaN/);
  expect(table).toContain('internal (claude-sonnet-5-5)');
  expect(table).toMatch(/\| memory \(qwen3:8b\) \|.*\| unknown \| unknown \|/);
  expect(table).toContain('summary (model not reported)');
  expect(table).toMatch(/\*\*all\*\* .*\$\d+\.\d{3} \+ 2 layer\(s\) unknown/);
});

it('a run priced throughout gives plain dollar totals', () => {
  const table = cacheTable([{ label: 'priced', byLayer: { internal: layer('claude-sonnet-5-5'), subconscious: layer('claude-haiku-5-5') } }]);
  expect(table).toMatch(/\*\*all\*\* .*\| \$\d+\.\d{3} \| \$\d+\.\d{3} \|$/m);
});
