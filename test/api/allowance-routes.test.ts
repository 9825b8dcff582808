// /api/allowances (issue 48, ARCHITECTURE §24): the list saved whole and read back with today's
// figures; bad input a clear 400 (or 404 for a persona or person that does not exist) that changes
// nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as allowancesRoute from '@/app/api/allowances/route';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { listAllowances } from '@/lib/store/allowances-repository';
import { OWNER_ID } from '@/lib/store/people-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\n' } });
beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud>' }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const put = (body: string) => allowancesRoute.PUT(new Request('http://127.0.0.1:3000/api/allowances', { method: 'PUT', headers: { 'content-type': 'application/json' }, body }), { params: Promise.resolve({}) });
const get = async () => (await allowancesRoute.GET(new Request('http://127.0.0.1:3000/api/allowances'), { params: Promise.resolve({}) })).json();

describe('/api/allowances', () => {
  it('saves the list whole and answers it with today in each time zone; refuses bad input and changes nothing', async () => {
    expect(await get()).toEqual({ allowances: [], today: [] });
    const list = [
      { scope: 'app', usd_per_day: 5, time_zone: 'Europe/Madrid' },
      { scope: 'persona', scope_id: 'iris', tokens_per_day: 200_000 },
      { scope: 'person', scope_id: OWNER_ID, usd_per_day: 2, tokens_per_day: 100_000, time_zone: 'America/New_York' },
    ];
    const saved = await put(JSON.stringify({ allowances: list }));
    expect(saved.status).toBe(200);
    const body = (await saved.json()) as { allowances: unknown[]; today: { scope: string; day: string; spent: unknown; limit: unknown }[] };
    expect(body.allowances).toEqual([
      { scope: 'app', scope_id: '', usd_per_day: 5, tokens_per_day: null, time_zone: 'Europe/Madrid' },
      { scope: 'person', scope_id: OWNER_ID, usd_per_day: 2, tokens_per_day: 100_000, time_zone: 'America/New_York' },
      { scope: 'persona', scope_id: 'iris', usd_per_day: null, tokens_per_day: 200_000, time_zone: 'UTC' },
    ]);
    expect(body.today[0]).toMatchObject({ scope: 'app', day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), spent: { usd: 0, tokens: 0 }, limit: { usd: 5, tokens: null } });

    for (const [bad, status] of [
      ['not json', 400],
      ['{"allowances":[{"scope":"app"}]}', 400], // no limit
      ['{"allowances":[{"scope":"app","usd_per_day":-1}]}', 400],
      ['{"allowances":[{"scope":"app","usd_per_day":1,"time_zone":"Mars/Olympus"}]}', 400],
      ['{"allowances":[{"scope":"app","scope_id":"x","usd_per_day":1}]}', 400],
      ['{"allowances":[{"scope":"persona","usd_per_day":1}]}', 400],
      ['{"allowances":[{"scope":"app","usd_per_day":1},{"scope":"app","tokens_per_day":5}]}', 400],
      ['{"allowances":[{"scope":"app","usd_per_day":1,"extra":true}]}', 400],
      ['{"allowances":[{"scope":"persona","scope_id":"../etc/passwd","usd_per_day":1}]}', 404],
      ['{"allowances":[{"scope":"person","scope_id":"nobody","usd_per_day":1}]}', 404],
    ] as const) {
      const refused = await put(bad);
      expect(refused.status, bad).toBe(status);
      expect(((await refused.json()) as { error: { code: string; message: string } }).error.message.length).toBeGreaterThan(0);
    }
    expect(await listAllowances()).toHaveLength(3);
    expect((await put(JSON.stringify({ allowances: [] }))).status).toBe(200);
    expect(await listAllowances()).toEqual([]);
  });
});
