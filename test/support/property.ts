// fast-check settings: a fixed seed in CI so a red run can be replayed; a fresh one elsewhere
// (fast-check prints the seed and the shrunk counterexample of any failure).
import type { Parameters } from 'fast-check';

export function propertyRuns(numRuns: number): Parameters<unknown> {
  return { numRuns, ...(process.env.CI && { seed: 20261122 }) };
}
