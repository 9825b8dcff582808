// /api/health says what is down (issue 73 §3–4: it said ok with PostgreSQL stopped and the disk
// full): the real route on the real store; a database nobody listens for (a refused loopback port);
// the data folder's disk read as nearly full.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import * as healthRoute from '@/app/api/health/route';
import { closeDb } from '@/lib/store/db';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { DISK_FULL_BELOW_BYTES, healthReport } from './health';

useTempAppDirs();
const savedUrl = process.env.AGENTCSD_DATABASE_URL;
afterEach(async () => {
  if (savedUrl === undefined) delete process.env.AGENTCSD_DATABASE_URL;
  else process.env.AGENTCSD_DATABASE_URL = savedUrl;
  await closeDb();
});

describe('health', () => {
  it('well: 200, the database and the disk ok, the free space read', async () => {
    const response = await healthRoute.GET(new Request('http://127.0.0.1:3000/api/health'), {} as never);
    expect(response.status).toBe(200);
    const report = (await response.json()) as Record<string, unknown>;
    expect(report).toMatchObject({ ok: true, database: 'ok', disk: 'ok', problems: [] });
    expect(report.disk_free_bytes).toBeGreaterThan(DISK_FULL_BELOW_BYTES);
  });

  it('the disk nearly full: not ok, and says so in words', async () => {
    const report = await healthReport({ freeBytes: () => 4096 });
    expect(report).toMatchObject({ ok: false, database: 'ok', disk: 'full', disk_free_bytes: 4096 });
    expect(report.problems).toEqual([expect.stringMatching(/^The disk is full/)]);
  });

  it('the database unreachable: 503, "cannot be reached", no stack', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    process.env.AGENTCSD_DATABASE_URL = `postgres://nobody:x@127.0.0.1:${port}/agentcsd`;
    const response = await healthRoute.GET(new Request('http://127.0.0.1:3000/api/health'), {} as never);
    expect(response.status).toBe(503);
    const report = (await response.json()) as { ok: boolean; database: string; problems: string[] };
    expect(report).toMatchObject({ ok: false, database: 'unreachable' });
    expect(report.problems).toEqual([expect.stringMatching(/^The database cannot be reached right now/)]);
    expect(JSON.stringify(report)).not.toMatch(/\.ts:\d+|invocation/);
  });
});
