// The allowances' store (issue 48, ARCHITECTURE §24), on both stores: the local day (a DST change
// is a 25-hour day, not a missed reset), a reservation of the worst case that holds until it
// settles, all of a call's allowances or none, the 80% notice claimed once, and two processes
// racing 50 calls each against an allowance of 10: never more than 10 through, all of it spent.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { claimNotice, dayFigures, listAllowances, localDay, replaceAllowances, reserve, settle, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { closeDb, getDb } from '@/lib/store/db';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs();
afterAll(() => closeDb());

const allowance = (id: string, limits: Partial<AllowanceRecord>): AllowanceRecord => ({ id, scope: 'app', scopeId: id, usdPerDay: null, tokensPerDay: null, timeZone: 'UTC', ...limits });

describe('a daily allowance', () => {
  it('counts days in its own time zone: the day the clocks go back lasts 25 hours', () => {
    // Europe/Madrid, 25 October 2026: 03:00 CEST becomes 02:00 CET.
    expect(localDay(new Date('2026-10-24T21:59:00Z'), 'Europe/Madrid')).toBe('2026-10-24');
    expect(localDay(new Date('2026-10-24T22:00:00Z'), 'Europe/Madrid')).toBe('2026-10-25');
    expect(localDay(new Date('2026-10-25T22:59:00Z'), 'Europe/Madrid')).toBe('2026-10-25');
    expect(localDay(new Date('2026-10-25T23:00:00Z'), 'Europe/Madrid')).toBe('2026-10-26');
    // and the day they go forward, 23 (America/New_York, 8 March 2026).
    expect(localDay(new Date('2026-03-08T04:59:00Z'), 'America/New_York')).toBe('2026-03-07');
    expect(localDay(new Date('2026-03-09T03:59:00Z'), 'America/New_York')).toBe('2026-03-08');
    expect(localDay(new Date('2026-03-09T04:00:00Z'), 'America/New_York')).toBe('2026-03-09');
  });

  it('reserves the worst case until the call settles, and refuses what could pass the limit', async () => {
    await getDb();
    const now = new Date('2026-11-27T12:00:00Z');
    const tokens = allowance('a-tokens', { tokensPerDay: 1_000 });
    await replaceAllowances([tokens], now);
    const first = await reserve([tokens], { usd: 0, tokens: 600 }, now);
    expect(first.ok).toBe(true);
    const second = await reserve([tokens], { usd: 0, tokens: 500 }, now);
    expect(second).toMatchObject({ ok: false, refusal: { unit: 'tokens', spent: 0, reserved: 600, limit: 1_000, day: '2026-11-27' } });
    if (first.ok) await settle(first.reservation, { usd: 0, tokens: 300 });
    expect((await reserve([tokens], { usd: 0, tokens: 500 }, now)).ok).toBe(true);
    expect(await dayFigures([tokens], now)).toMatchObject([{ spentTokens: 300, reservedTokens: 500 }]);
    // The next local day starts empty.
    expect((await reserve([tokens], { usd: 0, tokens: 900 }, new Date('2026-11-28T00:00:00Z'))).ok).toBe(true);
  });

  it("takes all of a call's allowances or none, and names the one that refused", async () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const app = allowance('b-app', { usdPerDay: 10 });
    const persona = { ...allowance('b-persona', { usdPerDay: 0.05 }), scope: 'persona' as const, scopeId: 'iris' };
    await replaceAllowances([app, persona], now);
    expect(await listAllowances()).toHaveLength(2);
    expect((await reserve([app, persona], { usd: 0.04, tokens: 10 }, now)).ok).toBe(true);
    const refused = await reserve([app, persona], { usd: 0.02, tokens: 10 }, now);
    expect(refused).toMatchObject({ ok: false, refusal: { allowance: { id: 'b-persona' }, unit: 'usd', reserved: 0.04, limit: 0.05 } });
    expect((await dayFigures([app], now))[0]!.reservedUsd).toBeCloseTo(0.04, 10); // the app's share was not kept
  });

  it('gives the 80% notice once a day', async () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const [app] = await listAllowances();
    await reserve([app!], { usd: 0, tokens: 1 }, now);
    expect(await claimNotice(app!.id, localDay(now, app!.timeZone), now)).toBe(true);
    expect(await claimNotice(app!.id, localDay(now, app!.timeZone), now)).toBe(false);
  });

  it('two processes racing 50 calls each against an allowance of 10: 10 through, 10 spent, none lost', async () => {
    const now = new Date();
    const ten = allowance('c-ten', { tokensPerDay: 10 });
    await replaceAllowances([ten], now);
    const here = Promise.all(
      Array.from({ length: 50 }, async () => {
        const held = await reserve([ten], { usd: 0, tokens: 1 }, new Date());
        if (!held.ok) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        await settle(held.reservation, { usd: 0, tokens: 1 });
        return true;
      }),
    );
    const [mine, theirs] = await Promise.all([here, racer(50, 1)]);
    const through = mine.filter(Boolean).length + theirs.through;
    expect(through).toBe(10);
    expect(await dayFigures([ten], new Date())).toMatchObject([{ spentTokens: 10, reservedTokens: 0 }]);
  }, 60_000);
});

/** test/support/allowance-racer.ts in a process of its own, on this file's database. */
function racer(count: number, tokens: number): Promise<{ through: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/allowance-racer.ts', String(count), String(tokens)], { env: { ...process.env, AGENTCSD_DATA_DIR: dirs.dataDir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { through: number }) : reject(new Error(`the racer exited ${code}: ${out}`))));
  });
}
