// GET /api/spending/idle (issue 74 §7): what an idle conversation costs a day on the default models —
// the rest rules' cycles times one Subconscious cycle: the benchmark's size before there are three
// cycles on the model, their median (tokens and recorded cost) after; continuous pacing says "at least".
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as idleRoute from '@/app/api/spending/idle/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { benchIdleCycle } from '@/lib/mind/idle-cost';
import { getDb } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { writeSettings } from '@/lib/store/settings-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
const haiku = { backend: 'anthropic' as const, model: 'claude-haiku-4-5', max_tokens: 512 };
beforeAll(async () => {
  await writeSettings({ models: { ...defaultModels, s_model: haiku }, params: defaultParams });
});
afterAll(async () => {
  await writeSettings({ models: defaultModels, params: defaultParams });
});

interface IdleJson {
  pacing: string;
  model: string;
  first_day: { cycles: number; tokens: number; usd: number | null };
  later_day: { cycles: number; tokens: number; usd: number | null };
  at_least: boolean;
  measured_from: number;
}
const get = async () => (await (await idleRoute.GET(new Request('http://127.0.0.1:3000/api/spending/idle'), { params: Promise.resolve({}) })).json()) as IdleJson;

describe('/api/spending/idle', () => {
  it('before any cycle: the benchmark’s cycle size, two thoughts the first day, nothing after, priced at the model’s rate', async () => {
    const body = await get();
    const tokens = 2 * (benchIdleCycle.inputTokens + benchIdleCycle.outputTokens);
    expect(body).toMatchObject({ pacing: 'adaptive', model: 'claude-haiku-4-5', first_day: { cycles: 2, tokens }, later_day: { cycles: 0, tokens: 0, usd: 0 }, at_least: false, measured_from: 0 });
    // Haiku 4.5: $1 in, $5 out per million.
    expect(body.first_day.usd).toBeCloseTo((2 * (benchIdleCycle.inputTokens * 1 + benchIdleCycle.outputTokens * 5)) / 1e6, 8);
  });

  it('after cycles on the model: their median, tokens and recorded cost; continuous pacing is at least a call after another all day', async () => {
    const sessionId = randomUUID();
    await insertSession({ id: sessionId, name: 'idle', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    const call = (inputTokens: number, costUsd: number) => ({ sessionId, layer: 'subconscious', backend: 'anthropic', model: 'claude-haiku-4-5', durationMs: 2_000, inputTokens, outputTokens: 100, costUsd });
    await (await getDb()).llmCall.createMany({ data: [call(800, 0.001), call(2_000, 0.003), call(900, 0.0011), { ...call(50_000, 1), layer: 'internal' }] });
    const body = await get();
    expect(body.measured_from).toBe(3);
    expect(body.first_day).toEqual({ cycles: 2, tokens: 2 * 1_000, usd: 0.0022 });
    await writeSettings({ models: { ...defaultModels, s_model: haiku }, params: { ...defaultParams, pacing: 'continuous' } });
    const continuous = await get();
    expect(continuous.at_least).toBe(true);
    expect(continuous.first_day.cycles).toBe(43_200); // a day of 2-second calls
    expect(continuous.later_day.cycles).toBe(43_200);
  });
});
