// A small price table (US$ per million tokens) for cost estimates. Unknown models say so.
import type { Usage } from './model-backend';

interface Price {
  input: number;
  output: number;
}

// Matched by prefix after dropping a date suffix (claude-haiku-4-5-20251001 → claude-haiku-4-5).
const prices: [prefix: string, price: Price][] = [
  ['claude-haiku-4-5', { input: 1, output: 5 }],
  ['claude-sonnet-4-5', { input: 3, output: 15 }],
  ['claude-sonnet-4', { input: 3, output: 15 }],
  ['claude-opus-4-5', { input: 5, output: 25 }],
  ['claude-opus-4-1', { input: 15, output: 75 }],
  ['claude-opus-4', { input: 15, output: 75 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4 }],
  ['claude-3-5-sonnet', { input: 3, output: 15 }],
];

// Anthropic's multipliers: a 5-minute cache write costs 1.25× input, a cache read 0.1×.
const cacheWriteFactor = 1.25;
const cacheReadFactor = 0.1;

export function priceOf(model: string): Price | undefined {
  const normalised = model.toLowerCase().replace(/-\d{8}$/, '').replace(/@.*$/, '');
  return prices.find(([prefix]) => normalised === prefix || normalised.startsWith(`${prefix}-`))?.[1];
}

export function estimateCost(model: string, usage: Omit<Usage, 'costUsd'>): number | 'unknown' {
  const price = priceOf(model);
  if (!price) return 'unknown';
  const dollars =
    (usage.inputTokens * price.input +
      usage.cacheWriteTokens * price.input * cacheWriteFactor +
      usage.cacheReadTokens * price.input * cacheReadFactor +
      usage.outputTokens * price.output) /
    1_000_000;
  return Math.round(dollars * 1e8) / 1e8;
}
