// Every benchmark names a current model (issue 43 §5): a model the pinned SDK lists as deprecated
// prints a warning on every call and stops answering at its end of life, so a benchmark run on it
// measures a model nobody can pick.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicSdkModels, deprecatedModels } from '@/lib/config/model-catalog';

describe('benchmarks', () => {
  it('name no deprecated model, and only models the catalog knows', () => {
    const named: string[] = [];
    for (const file of fs.readdirSync('bench').filter((name) => name.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join('bench', file), 'utf8');
      for (const match of text.matchAll(/['"`](claude-[a-z]+-[0-9][a-z0-9-]*)['"`]/g)) named.push(`${file}: ${match[1]}`);
    }
    expect(named.length).toBeGreaterThan(0);
    const stale = named.filter((entry) => entry.split(': ')[1]! in deprecatedModels);
    const unknown = named.filter((entry) => !(anthropicSdkModels as readonly string[]).includes(entry.split(': ')[1]!));
    expect({ stale, unknown }).toEqual({ stale: [], unknown: [] });
  });
});
