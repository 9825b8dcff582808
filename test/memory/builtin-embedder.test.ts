// The sentence model built into the app (issue 49), the real one — Universal Sentence Encoder lite
// from its npm package, nothing downloaded: unit vectors whose nearness follows meaning; chosen in
// Settings › Memory it is tested, saved, used by the background indexer and by recall, which finds
// by meaning what words miss; and the score fusion keeps the turn the words found first on top
// (equal-weight rank fusion let a weak list's ranks push it down).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as memorySettingsRoute from '@/app/api/memory-settings/route';
import * as memorySettingsTest from '@/app/api/memory-settings/test/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { configuredEmbedder } from '@/lib/memory/embeddings';
import { createLocalEmbedder, LOCAL_EMBEDDER_MODEL } from '@/lib/memory/local-embedder';
import { defaultMemorySettings, writeMemorySettings } from '@/lib/memory/memory-settings';
import { recall } from '@/lib/memory/recall';
import { VectorIndexer } from '@/lib/memory/vector-indexer';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { insertUserMessage } from '@/lib/store/mind-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { getDb } from '@/lib/store/db';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
beforeAll(() => startOrchestrator());
afterAll(async () => {
  await writeMemorySettings(defaultMemorySettings);
  await stopOrchestrator();
});

const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

describe('the built-in sentence model', () => {
  it('gives unit vectors whose nearness follows meaning, without a network', async () => {
    const [dog, puppy, taxes] = await createLocalEmbedder().embed(['I love my dog', 'my puppy is great', 'the tax return is due in April']);
    expect(dog!.length).toBe(512);
    expect(dot(dog!, dog!)).toBeCloseTo(1, 4);
    expect(dot(dog!, puppy!)).toBeGreaterThan(dot(dog!, taxes!) + 0.3);
  });

  it('is chosen in Settings › Memory, tested, used by the indexer and by recall; words still lead', async () => {
    const tested = await memorySettingsTest.POST(new Request('http://x/api/memory-settings/test', json({ builtin: true })), undefined);
    expect(await tested.json()).toEqual({ ok: true, dims: 512 });
    const refused = await memorySettingsTest.POST(new Request('http://x/api/memory-settings/test', json({ builtin: 'yes' })), undefined);
    expect(refused.status).toBe(400);

    const saved = await memorySettingsRoute.PUT(new Request('http://x/api/memory-settings', { ...json({ embeddings: null, builtin_embedder: true, consolidation: defaultMemorySettings.consolidation }), method: 'PUT' }), undefined);
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { settings: { builtin_embedder: boolean } }).settings.builtin_embedder).toBe(true);
    expect((await configuredEmbedder())?.model).toBe(LOCAL_EMBEDDER_MODEL);

    const id = crypto.randomUUID();
    await insertSession({ id, name: 'b', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    const said = ['I finally bought an automobile last week', 'We talked about the weather in Oslo', 'My sister plays the violin in an orchestra', 'The weather in Oslo was grey and cold all week'];
    for (const text of said) await insertUserMessage({ sessionId: id, content: text, cycleNumber: 0 });
    // This indexer's round, beside the app's own background indexer (the saved setting woke it too):
    // between them every message is indexed, each once, by the built-in model.
    const indexer = new VectorIndexer();
    await indexer.runOnce();
    const vectors = await (await getDb()).memoryVector.findMany({ where: { itemKind: 'message', personaName: 'iris' }, select: { itemId: true, model: true } });
    expect(vectors).toHaveLength(said.length);
    expect(new Set(vectors.map((vector) => vector.model))).toEqual(new Set([LOCAL_EMBEDDER_MODEL]));
    expect(indexer.status()).toMatchObject({ model: LOCAL_EMBEDDER_MODEL, lastError: null });

    // No word in common: only the vectors find it.
    expect(await recall({ personaName: 'iris', query: 'my new car', embedder: null })).toEqual([]);
    const byMeaning = await recall({ personaName: 'iris', query: 'my new car' });
    expect(byMeaning[0]).toMatchObject({ content: 'I finally bought an automobile last week' });
    expect(byMeaning[0]!.why).toContain('by meaning');
    // Words in common: the lexical order stands, meaning adds the rest after it.
    const lexical = (await recall({ personaName: 'iris', query: 'weather in Oslo', embedder: null })).map((hit) => hit.content);
    const fused = (await recall({ personaName: 'iris', query: 'weather in Oslo' })).map((hit) => hit.content);
    expect(fused.slice(0, 2).sort()).toEqual(lexical.slice(0, 2).sort());
  });
});
