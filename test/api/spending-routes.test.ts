// /api/spending (issue 48): the recorded calls of the last days summed per local day, by what made
// them and by persona, the costliest sessions, one session's alone; bad queries a clear 400/404.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as spendingRoute from '@/app/api/spending/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { localDay } from '@/lib/store/allowances-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\n', nova: '# Nova\n' } });
beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud>' }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const get = async (query: string) => spendingRoute.GET(new Request(`http://127.0.0.1:3000/api/spending${query}`), { params: Promise.resolve({}) });
const day = 24 * 60 * 60 * 1000;

describe('/api/spending', () => {
  it('sums the last days by what made the calls and by persona, and names the costliest sessions', async () => {
    const session = (persona: string, parent?: string) => insertSession({ id: randomUUID(), name: `${persona} chat`, personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' }).then(async (made) => {
      if (parent) await (await getDb()).session.update({ where: { id: made.id }, data: { parentSessionId: parent } });
      return made.id;
    });
    const iris = await session('iris');
    const nova = await session('nova');
    const specialist = await session('nova', iris);
    const now = Date.now();
    const call = (sessionId: string, layer: string, at: number, costUsd: number | null, traceId: string | null = null) => ({ sessionId, layer, backend: 'anthropic', model: 'claude-haiku-4-5', startedAt: new Date(at), durationMs: 100, inputTokens: 100, outputTokens: 10, costUsd, traceId });
    await (await getDb()).llmCall.createMany({
      data: [
        call(iris, 'internal', now - 1_000, 0.5),
        call(iris, 'internal', now - 2_000, 0.25, 'trace-1'),
        call(iris, 'subconscious', now - 3_000, 0.125),
        call(iris, 'memory', now - 4_000, 0.0625),
        call(nova, 'internal', now - 2 * day, 1),
        call(nova, 'internal', now - 40 * day, 100), // before the window
        call(specialist, 'internal', now - 5_000, 2),
        call(nova, 'subconscious', now - 6_000, null), // a local model: tokens, no price
      ],
    });
    const response = await get('?days=30&time_zone=UTC');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { time_zone: string; days: { day: string; usd: number; tokens: number; by_layer: Record<string, number>; by_persona: Record<string, number> }[]; top_sessions: { name: string; usd: number }[] };
    expect(body.days).toHaveLength(30);
    const today = body.days.at(-1)!;
    expect(today.day).toBe(localDay(new Date(), 'UTC'));
    expect(today.by_layer).toEqual({ internal: 0.5, tasks: 0.25, subconscious: 0.125, consolidation: 0.0625, delegation: 2 });
    expect(today.by_persona).toEqual({ iris: 0.9375, nova: 2 });
    expect(today.tokens).toBe(6 * 110);
    expect(body.days.reduce((sum, entry) => sum + entry.usd, 0)).toBeCloseTo(3.9375, 10);
    expect(body.top_sessions.map((row) => [row.name, row.usd])).toEqual([
      ['nova chat', 2],
      ['nova chat', 1],
      ['iris chat', 0.9375],
    ]);
    const one = (await (await get(`?session=${iris}&days=7`)).json()) as { days: { usd: number }[]; top_sessions?: unknown };
    expect(one.days.at(-1)!.usd).toBeCloseTo(0.9375, 10);
    expect(one.top_sessions).toBeUndefined();

    for (const [query, status] of [['?days=0', 400], ['?days=abc', 400], ['?time_zone=Mars/Base', 400], ['?session=../x', 400], ['?extra=1', 400], [`?session=${randomUUID()}`, 404]] as const) {
      const refused = await get(query);
      expect(refused.status, query).toBe(status);
      expect(((await refused.json()) as { error: { message: string } }).error.message.length).toBeGreaterThan(0);
    }
  });
});
