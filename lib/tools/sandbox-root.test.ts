// Issue 41 §13: as root (a VPS, a container), from a data folder under a 0700 parent — root's home
// folder, say — `bash` runs and writes in its workspace, while root's home, the shadow file and the
// data folder's other contents stay out of reach. Before, nobody (the sandbox's user) could not walk
// to the workspace and every shell call failed. And no descriptor of a host folder is left open for
// the command (one was, until issue 43: `..` from it read a neighbour's workspace). Runs where the
// tests run as root (CI does).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from './sandbox';
import { bashTool } from './shell-tools';
import { ensureWorkspace } from './workspace';

const asRoot = process.getuid?.() === 0;
let home = '';
let dataDir = '';

beforeAll(() => {
  // Like /root: a private parent (0700), the app's folder and its data inside it.
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-roothome-')));
  fs.chmodSync(home, 0o700);
  fs.writeFileSync(path.join(home, '.secret-of-root'), 'CANARY-root-home');
  dataDir = path.join(home, 'app', 'data');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, 'agentcsd.db'), 'CANARY-database');
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe.runIf(asRoot)('as root, with the data folder under a 0700 parent', () => {
  it('the sandbox is available, and bash writes in the workspace as nobody', async () => {
    expect((fs.statSync(home).mode & 0o777).toString(8)).toBe('700');
    const status = await probeSandbox({ refresh: true, workspacesDir: path.join(dataDir, 'workspaces') });
    expect(status).toMatchObject({ available: true, runsAs: 'nobody' });
    const workspace = ensureWorkspace('root-session', dataDir);
    const outcome = await bashTool.run(
      { command: 'id -u; echo made-inside > note.txt; cat note.txt; cat /etc/shadow; ls /root; ls ../; cat /proc/1/root/etc/shadow; echo end', explanation: 'probe' },
      { sessionId: 'root-session', workspaceDir: workspace, signal: new AbortController().signal },
    );
    expect(outcome.content).toMatch(/^65534$/m);
    expect(outcome.content).toContain('made-inside');
    expect(outcome.content).toContain('end');
    expect(outcome.content).not.toMatch(/CANARY|root:[^\n]*:\d+:/);
    expect(fs.readFileSync(path.join(workspace, 'note.txt'), 'utf8')).toBe('made-inside\n');
    // Nothing about the parents changed to make it work.
    expect((fs.statSync(home).mode & 0o777).toString(8)).toBe('700');
  }, 30_000);

  it('no handle on a host folder reaches the command: `..` from an inherited descriptor leads nowhere (issue 43)', async () => {
    // A data folder anyone may read, with another session's workspace beside this one's.
    const open = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-open-data-')));
    try {
      fs.chmodSync(open, 0o755);
      const mine = ensureWorkspace('fd-session', open);
      const theirs = ensureWorkspace('neighbour-session', open);
      fs.writeFileSync(path.join(theirs, 'secret.txt'), 'CANARY-neighbour');
      fs.chmodSync(path.join(theirs, 'secret.txt'), 0o644);
      const outcome = await bashTool.run(
        { command: 'ls -l /proc/self/fd; for f in /proc/self/fd/*; do cat "$f"/../neighbour-session/secret.txt "$f"/../../workspaces/neighbour-session/secret.txt; done 2>/dev/null; echo end', explanation: 'probe' },
        { sessionId: 'fd-session', workspaceDir: mine, signal: new AbortController().signal },
      );
      expect(outcome.content).toContain('end');
      expect(outcome.content).not.toContain('CANARY');
      expect(outcome.content).not.toContain(open);
    } finally {
      fs.rmSync(open, { recursive: true, force: true });
    }
  }, 30_000);
});
