// The catalog copies two facts from the pinned SDK (its model ids, its deprecation table): these
// tests read both from the installed SDK, so an upgrade that changes them fails here first.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultModels } from '@/lib/config/model-config';
import { anthropicSdkModels, cliModelListing, defaultModelIds, deprecatedModels, deprecationOf } from '@/lib/config/model-catalog';
import { estimateCost, priceOf } from '@/lib/backends/pricing';

// The package's exports hide its files; its main entry sits at the package root.
const sdkDir = path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sdk'));
const sdkFile = (file: string) => fs.readFileSync(path.join(sdkDir, file), 'utf8');

const months: Record<string, string> = { January: '01', February: '02', March: '03', April: '04', May: '05', June: '06', July: '07', August: '08', September: '09', October: '10', November: '11', December: '12' };

describe('model catalog against the installed SDK', () => {
  it('lists exactly the model ids of the SDK Model union', () => {
    const union = /export type Model = ([^;]+);/.exec(sdkFile('resources/messages/messages.d.ts'))![1]!;
    const ids = [...union.matchAll(/'([^']+)'/g)].map((match) => match[1]);
    expect([...anthropicSdkModels]).toEqual(ids);
  });

  it('has the SDK deprecation table, dates as ISO', () => {
    const table = sdkFile('internal/data/deprecated-models.js');
    const entries = Object.fromEntries(
      [...table.matchAll(/'([^']+)': '(\w+) (\d+)\w*, (\d{4})'/g)].map(([, model, month, day, year]) => [model, `${year}-${months[month!]}-${day!.padStart(2, '0')}`]),
    );
    expect(Object.keys(entries).length).toBeGreaterThan(0);
    expect(deprecatedModels).toEqual(entries);
  });

  it('prices every model the SDK lists that is still served, or says unknown', () => {
    const unpriced = anthropicSdkModels.filter((model) => !priceOf(model));
    // No published price found for these (docs/benchmarks.md "Prices"): their cost shows as unknown.
    expect(unpriced).toEqual(['claude-fable-5-2', 'claude-mythos-5-2', 'claude-mythos-preview']);
    for (const model of unpriced) expect(estimateCost(model, { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBe('unknown');
  });

  it('defaults to models that are not deprecated: the CLI aliases, current API ids', () => {
    expect(defaultModels.c_model.model).toBe('sonnet');
    expect(defaultModels.s_model.model).toBe('haiku');
    for (const ids of Object.values(defaultModelIds)) {
      if (!ids) continue;
      for (const model of Object.values(ids)) expect(deprecationOf(model), model).toBeNull();
    }
    for (const model of Object.values(defaultModelIds.anthropic!)) expect(anthropicSdkModels).toContain(model);
  });
});

describe('deprecationOf', () => {
  it('gives the end of life, whether it passed, and the current model of the same line', () => {
    expect(deprecationOf('claude-sonnet-4-5', new Date('2026-11-23T12:00:00Z'))).toEqual({ endOfLife: '2026-11-30', ended: false, replacement: 'claude-sonnet-5-5' });
    expect(deprecationOf('claude-sonnet-4-5-20250929', new Date('2026-12-01T00:00:01Z'))).toMatchObject({ ended: true });
    expect(deprecationOf('claude-sonnet-5-5')).toBeNull();
    expect(deprecationOf('sonnet')).toBeNull();
    expect(deprecationOf('llama3.2', new Date(), { retiresAt: '2027-01-31T00:00:00Z' })).toEqual({ endOfLife: '2027-01-31', ended: false });
  });

  it('the CLI listing starts with its aliases and marks deprecated ids', () => {
    const listing = cliModelListing(new Date('2026-11-23T00:00:00Z'));
    expect(listing.slice(0, 4).map((model) => model.id)).toEqual(['sonnet', 'haiku', 'opus', 'fable']);
    expect(listing.find((model) => model.id === 'claude-sonnet-4-5')).toMatchObject({ end_of_life: '2026-11-30' });
  });
});

describe('pricing', () => {
  const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({ inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite });

  it('uses each model its own cache rates', () => {
    expect(estimateCost('claude-sonnet-5-5', usage(1_000_000, 0, 1_000_000, 1_000_000))).toBeCloseTo(2 + 0.1 + 2.5);
    expect(estimateCost('claude-sonnet-5', usage(0, 0, 1_000_000))).toBeCloseTo(0.2);
    expect(estimateCost('claude-haiku-4-5-20251001', usage(1_000_000, 1_000_000))).toBeCloseTo(6);
  });

  it('charges Haiku 5.5 every token at the long-prompt tier once the prompt passes 100k', () => {
    expect(estimateCost('claude-haiku-5-5', usage(100_000, 1_000))).toBeCloseTo((100_000 * 0.1 + 1_000 * 0.5) / 1e6);
    expect(estimateCost('claude-haiku-5-5', usage(100_001, 1_000))).toBeCloseTo((100_001 * 0.5 + 1_000 * 2.5) / 1e6);
    // Matches what Claude Code CLI 2.1.330 reported for its haiku alias: 2,754 cache-write + 2 output tokens.
    expect(estimateCost('claude-haiku-5-5', usage(0, 2, 0, 2754))).toBeCloseTo(0.00034525, 7);
  });

  it('every priced row names its source', () => {
    for (const model of anthropicSdkModels) {
      const price = priceOf(model);
      if (price) expect(price.source.length, model).toBeGreaterThan(10);
    }
  });
});
