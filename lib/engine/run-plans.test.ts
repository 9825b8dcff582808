import { describe, expect, it } from 'vitest';
import { runPlan } from './run-plans';

const members = [
  { name: 'old-web', version: '1.0' },
  { name: 'new-worker', version: '2.0' },
];

describe('what the Cluster page says of a run of another version', () => {
  it('one a live member of its version runs: where it runs', () => {
    expect(runPlan({ version: '1.0', executor: 'old-web' }, members, '2.0', 30)).toBe('runs on old-web (version 1.0) and finishes there; if that process stops first, it continues on version 2.0 from its last finished step');
  });
  it('one no member runs while a member of its version lives (parked, or a dead member’s): it waits', () => {
    expect(runPlan({ version: '1.0', executor: 'parked:old-web' }, members, '2.0', 30)).toMatch(/^waits while a process of version 1\.0 runs/);
    expect(runPlan({ version: '1.0', executor: 'gone-web' }, members, '2.0', 30)).toMatch(/^waits while a process of version 1\.0 runs/);
  });
  it('one of a version no member runs: carried onto this one', () => {
    expect(runPlan({ version: '0.9', executor: 'gone-web' }, members, '2.0', 30)).toBe('continues on version 2.0 from its last finished step, in the process that holds its session (within 30 s)');
  });
});
