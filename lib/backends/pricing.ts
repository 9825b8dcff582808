// Prices (US$ per million tokens) for cost estimates, each with where the figure comes from.
// A model without a row says 'unknown' rather than guess. The Claude Code CLI reports its own
// cost (total_cost_usd), so its aliases need no row here.
import type { Usage } from './model-backend';

interface Rates {
  input: number;
  output: number;
  /** 5-minute cache write; Anthropic's standard is 1.25× input. */
  cacheWrite: number;
  cacheRead: number;
}

export interface Price extends Rates {
  /** Some models charge every token of a request more when its prompt is long. */
  longPrompt?: Rates & { overTokens: number };
  source: string;
}

/** The standard multipliers: a 5-minute cache write costs 1.25× input, a cache read 0.1×. */
function standard(input: number, output: number, source: string, cacheReadFactor = 0.1): Price {
  return { input, output, cacheWrite: input * 1.25, cacheRead: input * cacheReadFactor, source };
}

const overview = (model: string) => `platform.claude.com/docs/models/${model}/overview`;
const pricingPage = 'platform.claude.com/docs/about-claude/pricing';

// Matched exactly after dropping a date suffix (claude-haiku-4-5-20251001 → claude-haiku-4-5). Read 2026-11-23; see docs/benchmarks.md "Prices".
const prices: [model: string, price: Price][] = [
  [
    'claude-haiku-5-5',
    {
      input: 0.1,
      output: 0.5,
      cacheWrite: 0.125,
      cacheRead: 0.01,
      longPrompt: { overTokens: 100_000, input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 },
      source: `${pricingPage} (Haiku 5.5, two prompt-length tiers, from 2026-10-07); the write and output rates agree with the cost Claude Code CLI 2.1.330 reports for its "haiku" alias`,
    },
  ],
  ['claude-sonnet-5-5', { ...standard(2, 10, ''), cacheRead: 0.1, source: `${overview('sonnet-5-5')} ($2 / $10, cache write $2.50); cache read cut from $0.20 to $0.10 on 2026-10-07 (${pricingPage})` }],
  ['claude-opus-5-5', standard(4, 20, `${overview('sonnet-5-5')} comparison table ($4 / $20); cache read $0.20 (${pricingPage})`, 0.05)],
  ['claude-fable-5-1', standard(10, 50, `${overview('sonnet-5-5')} comparison table ($10 / $50); cache read 0.025× (${pricingPage})`, 0.025)],
  ['claude-mythos-5-1', standard(10, 50, `${pricingPage} (Mythos 5.1 priced as Fable 5.1)`, 0.025)],
  ['claude-sonnet-5', standard(2, 10, `${overview('sonnet-5')} ($2 / $10, cache write $2.50, read $0.20)`)],
  ['claude-opus-5', standard(5, 25, `${overview('sonnet-5')} comparison table ($5 / $25)`)],
  ['claude-fable-5', standard(10, 50, `${pricingPage} (Fable 5)`)],
  ['claude-mythos-5', standard(10, 50, `${pricingPage} (Mythos 5 priced as Fable 5)`)],
  ['claude-opus-4-8', standard(5, 25, `${pricingPage} and the Opus 4.8 release announcement`)],
  ['claude-opus-4-7', standard(5, 25, pricingPage)],
  ['claude-opus-4-6', standard(5, 25, pricingPage)],
  ['claude-sonnet-4-6', standard(3, 15, pricingPage)],
  ['claude-haiku-4-5', standard(1, 5, pricingPage)],
  ['claude-sonnet-4-5', standard(3, 15, pricingPage)],
  ['claude-opus-4-5', standard(5, 25, pricingPage)],
  ['claude-opus-4-1', standard(15, 75, pricingPage)],
  ['claude-opus-4', standard(15, 75, pricingPage)],
  ['claude-sonnet-4', standard(3, 15, pricingPage)],
  ['claude-3-7-sonnet', standard(3, 15, pricingPage)],
  ['claude-3-5-haiku', standard(0.8, 4, pricingPage)],
  ['claude-3-5-sonnet', standard(3, 15, pricingPage)],
  ['claude-3-haiku', standard(0.25, 1.25, pricingPage, 0.12)],
];

function normalise(model: string): string {
  return model.trim().toLowerCase().replace(/-\d{8}$/, '').replace(/@.*$/, '').replace(/\[1m\]$/, '');
}

export function priceOf(model: string): Price | undefined {
  const normalised = normalise(model);
  // claude-sonnet-4-0 and claude-3-5-sonnet-latest name a priced model; claude-fable-5-2 is a
  // model of its own, never claude-fable-5's.
  return prices.find(([id]) => normalised === id || normalised === `${id}-0` || normalised === `${id}-latest`)?.[1];
}

export function estimateCost(model: string, usage: Omit<Usage, 'costUsd'>): number | 'unknown' {
  const price = priceOf(model);
  if (!price) return 'unknown';
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const rates: Rates = price.longPrompt && prompt > price.longPrompt.overTokens ? price.longPrompt : price;
  const dollars =
    (usage.inputTokens * rates.input + usage.cacheWriteTokens * rates.cacheWrite + usage.cacheReadTokens * rates.cacheRead + usage.outputTokens * rates.output) /
    1_000_000;
  return Math.round(dollars * 1e8) / 1e8;
}
