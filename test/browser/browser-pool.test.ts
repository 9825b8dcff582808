// The pool's limits (issue 45 §1), on the real Chromium: past the cap the least recently used
// session's context closes (its state saved first); a quiet one closes after the idle time, unless
// a person watches it; a session's saved state is forgotten with the session.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '@/lib/browser/browser-pool';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: {} });
const rules = { allowedHosts: new Set<string>(), allowPublic: false };
let pool: BrowserPool;
afterAll(() => pool?.stop());

describe('the browser pool', () => {
  it('closes the least recently used past the cap, a quiet one after the idle time (not while watched), and forgets a deleted session', async () => {
    pool = new BrowserPool({ executablePath: process.env.AGENTCSD_CHROMIUM_PATH ?? '/usr/bin/chromium', browserDir: path.join(dirs.dataDir, 'browser'), maxContexts: 2, idleMs: 400 });
    await pool.session('a', rules);
    await pool.session('b', rules);
    await pool.session('a', rules); // a is used again: b is now the least recent
    await pool.session('c', rules);
    expect(pool.openSessions().sort()).toEqual(['a', 'c']);
    expect(fs.existsSync(pool.statePath('b'))).toBe(true); // saved on the way out

    const watched = await pool.session('a', rules);
    await watched.watch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(pool.openSessions()).toEqual(['a']); // c went quiet; a is watched
    await watched.unwatch();
    await expect.poll(() => pool.openSessions(), { timeout: 5_000 }).toEqual([]);

    // Its state is saved as its context closes, just after it leaves the list.
    await expect.poll(() => fs.existsSync(pool.statePath('a')), { timeout: 5_000 }).toBe(true);
    await pool.forget('a');
    expect(fs.existsSync(pool.statePath('a'))).toBe(false);
  }, 60_000);
});
