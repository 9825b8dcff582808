// One version per release (issue 60 §1): computed from the checkout's files, so tsx and the bundle
// agree; a change to what a run does is a new version; a change elsewhere is not; the variable wins.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appVersion, computeAppVersion } from './app-version';

function checkout(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-version-'));
  const write = (file: string, text: string) => (fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true }), fs.writeFileSync(path.join(root, file), text));
  write('package.json', JSON.stringify({ version: '1.4.0' }));
  write('prisma/migrations/20261205000000_rights/migration.sql', '');
  write('prisma/migrations/20261101000000_init/migration.sql', '');
  write('lib/tasks/task-workflow.ts', 'export const steps = 1;\n');
  write('lib/engine/dbos-engine.ts', 'export const engine = 1;\n');
  write('lib/engine/dbos-engine.test.ts', 'a test\n');
  write('lib/agent/short-runs.ts', 'export const runs = 1;\n');
  write('lib/memory/recall.ts', 'export const recall = 1;\n');
  return root;
}

describe('the app version', () => {
  it('is the package version, the newest migration and a digest of the run sources', () => {
    expect(computeAppVersion(checkout())).toMatch(/^1\.4\.0\+20261205000000\.[0-9a-f]{12}$/);
  });

  it('is the same for the same files, and new when the task workflow changes — not when other code or a test does', () => {
    const root = checkout();
    const first = computeAppVersion(root);
    expect(computeAppVersion(checkout())).toBe(first);
    fs.writeFileSync(path.join(root, 'lib/memory/recall.ts'), 'export const recall = 2;\n');
    fs.writeFileSync(path.join(root, 'lib/engine/dbos-engine.test.ts'), 'another test\n');
    expect(computeAppVersion(root)).toBe(first);
    fs.writeFileSync(path.join(root, 'lib/tasks/task-workflow.ts'), 'export const steps = 2;\n');
    expect(computeAppVersion(root)).not.toBe(first);
    // Windows line endings are the same release.
    const other = checkout();
    fs.writeFileSync(path.join(other, 'lib/tasks/task-workflow.ts'), 'export const steps = 2;\r\n');
    expect(computeAppVersion(other)).toBe(computeAppVersion(root));
  });

  it('is AGENTCSD_APP_VERSION when set', () => {
    expect(appVersion({ AGENTCSD_APP_VERSION: 'release-7' })).toBe('release-7');
    expect(appVersion({})).toMatch(/^\d+\.\d+\.\d+\+\d{14}\.[0-9a-f]{12}$/); // this checkout's
  });
});
