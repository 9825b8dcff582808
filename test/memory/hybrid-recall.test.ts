// Hybrid recall against the fake OpenAI-compatible server's /v1/embeddings (it answers floats
// whatever is asked, as Ollama does): our client asks for floats and checks every answer; vectors
// are indexed in the background and found by meaning where words do not match; another persona's
// items never come back; a failing endpoint leaves recall lexical; forgetting takes the vector too.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as memorySettingsRoute from '@/app/api/memory-settings/route';
import * as memorySettingsTest from '@/app/api/memory-settings/test/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { checkedVectors, createEmbedder, EmbeddingError } from '@/lib/memory/embeddings';
import { defaultMemorySettings, writeMemorySettings } from '@/lib/memory/memory-settings';
import { appendMemory, forgetMemory, updateMemory } from '@/lib/memory/memory-store';
import { recall } from '@/lib/memory/recall';
import { indexPending, vectorCount } from '@/lib/memory/vector-index';
import { VectorIndexer } from '@/lib/memory/vector-indexer';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { insertUserMessage } from '@/lib/store/mind-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { FAKE_EMBEDDING_DIMS } from '@/test/fakes/fake-embedder';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { getDb } from '@/lib/store/db';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  await startOrchestrator();
});
afterAll(async () => {
  await stopOrchestrator();
  await fake.close();
});

const config = () => ({ endpoint: `${fake.url}/v1`, model: 'fake-embed' });

async function session(persona: string, texts: string[]) {
  const id = crypto.randomUUID();
  await insertSession({ id, name: 'm', personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
  for (const text of texts) await insertUserMessage({ sessionId: id, content: text, cycleNumber: 0 });
  return id;
}

describe('the embeddings client', () => {
  it('asks for floats and gets unit vectors of the model\'s length; the SDK left to itself would read floats as base64', async () => {
    const before = fake.requests.length;
    const vectors = await createEmbedder(config()).embed(['a car', 'an automobile']);
    expect(fake.requests[before]!.body).toMatchObject({ model: 'fake-embed', encoding_format: 'float', input: ['a car', 'an automobile'] });
    expect(vectors.map((vector) => vector.length)).toEqual([FAKE_EMBEDDING_DIMS, FAKE_EMBEDDING_DIMS]);
    expect(vectors[0]!.reduce((sum, value) => sum + value * value, 0)).toBeCloseTo(1, 5);
    // The trap the client avoids: openai 6.x asks for base64 by default and decodes what comes back.
    const sdk = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'x' });
    const naive = await sdk.embeddings.create({ model: 'fake-embed', input: 'a car' });
    expect(naive.data[0]!.embedding.length).not.toBe(FAKE_EMBEDDING_DIMS);
  });

  it('refuses answers that are not one finite, non-zero vector per text of one length', () => {
    const vector = (values: unknown, index = 0) => ({ index, embedding: values });
    const cases: [unknown, number, RegExp][] = [
      [{ data: [vector([1, 0])] }, 2, /1 vectors for 2 texts/],
      [{ data: [vector([1, 0]), vector([1, 0, 0], 1)] }, 2, /different lengths/],
      [{ data: [vector('AACAPw==')] }, 1, /base64/],
      [{ data: [vector([0, 0, 0])] }, 1, /all zeros/],
      [{ data: [vector([])] }, 1, /empty/],
      [{ data: [vector([1, null])] }, 1, /not a number/],
      [{}, 1, /no vectors/],
    ];
    for (const [answer, expected, message] of cases) expect(() => checkedVectors(answer as { data: unknown }, expected)).toThrow(message);
    expect(() => checkedVectors({ data: [vector([3, 4])] }, 1)).not.toThrow(EmbeddingError);
  });

  it('an endpoint that is down or answers vectors of changing length is a clear error', async () => {
    await expect(createEmbedder({ endpoint: 'http://127.0.0.1:9/v1', model: 'x' }, { timeoutMs: 2_000 }).embed(['hi'])).rejects.toThrow(/could not be reached/);
    const odd = await startFakeOpenAIServer({ embed: (_text, index) => new Array(8 + index).fill(1) });
    try {
      await expect(createEmbedder({ endpoint: `${odd.url}/v1`, model: 'x' }).embed(['a', 'b'])).rejects.toThrow(/different lengths \(8 and 9\)/);
    } finally {
      await odd.close();
    }
  });
});

describe('hybrid recall', () => {
  it('finds by meaning what words miss, never another persona\'s, and fuses both lists', async () => {
    await session('iris', ['I finally bought an automobile last week', 'We talked about the weather in Oslo']);
    await session('olaf', ['My sedan broke down on the highway']);
    await appendMemory({ personaName: 'iris', content: 'The user works as a physician at the city hospital' });
    const embedder = createEmbedder(config());
    expect(await indexPending(embedder)).toBe(4);
    expect(await indexPending(embedder)).toBe(0); // idempotent

    expect(await recall({ personaName: 'iris', query: 'my car', embedder: null })).toEqual([]);
    const byMeaning = await recall({ personaName: 'iris', query: 'my car', embedder });
    expect(byMeaning[0]).toMatchObject({ kind: 'message', content: 'I finally bought an automobile last week' });
    expect(byMeaning[0]!.why).toContain('meaning');
    expect(byMeaning.map((hit) => hit.content)).not.toContain('My sedan broke down on the highway');

    const both = await recall({ personaName: 'iris', query: 'doctor hospital', embedder });
    expect(both[0]).toMatchObject({ kind: 'memory', content: 'The user works as a physician at the city hospital' });
    expect(both[0]!.why).toMatch(/text match #1 \+ meaning #1/);
  });

  it('a failing endpoint leaves recall lexical; an edited memory is embedded again; forgetting takes its vector', async () => {
    const down = createEmbedder({ endpoint: 'http://127.0.0.1:9/v1', model: 'fake-embed' }, { timeoutMs: 1_000 });
    const lexical = await recall({ personaName: 'iris', query: 'weather Oslo', embedder: down });
    expect(lexical[0]).toMatchObject({ content: 'We talked about the weather in Oslo' });

    const embedder = createEmbedder(config());
    const { memory } = await appendMemory({ personaName: 'iris', content: 'The user has a puppy named Rex' });
    await indexPending(embedder);
    const count = await vectorCount();
    await updateMemory(memory.id, { content: 'The user has a hound named Rex' });
    expect(await vectorCount()).toBe(count - 1);
    expect(await indexPending(embedder)).toBe(1);
    expect((await recall({ personaName: 'iris', query: 'dog', embedder }))[0]).toMatchObject({ id: memory.id, kind: 'memory' });

    await forgetMemory(memory.id);
    expect(await vectorCount()).toBe(count - 1);
    expect(await (await getDb()).memoryVector.count({ where: { itemKind: 'memory', itemId: memory.id } })).toBe(0);
    expect((await recall({ personaName: 'iris', query: 'dog', embedder })).some((hit) => hit.kind === 'memory' && hit.id === memory.id)).toBe(false);
  });

  it('Settings › Memory: the endpoint is tested and saved, its key never shown; the background indexer uses it', async () => {
    const tested = await memorySettingsTest.POST(new Request('http://x/api/memory-settings/test', { method: 'POST', body: JSON.stringify({ embeddings: config() }), headers: { 'content-type': 'application/json' } }), undefined);
    expect(await tested.json()).toEqual({ ok: true, dims: FAKE_EMBEDDING_DIMS });
    const put = (body: unknown) => memorySettingsRoute.PUT(new Request('http://x/api/memory-settings', { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }), undefined);
    const saved = await put({ embeddings: { ...config(), api_key: 'sk-embed-secret-7781' }, consolidation: defaultMemorySettings.consolidation });
    expect(saved.status).toBe(200);
    const text = JSON.stringify(await saved.json());
    expect(text).not.toContain('sk-embed-secret-7781');
    expect(text).toContain('…7781');
    const bad = await put({ embeddings: { endpoint: 'not a url', model: '' }, consolidation: { enabled: true } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('validation_failed');

    await session('iris', ['Our cheerful neighbour waved']);
    const indexer = new VectorIndexer();
    expect(await indexer.runOnce()).toBe(1);
    expect(indexer.status()).toMatchObject({ model: 'fake-embed', lastError: null });
    // recall with no embedder given uses the configured one.
    expect((await recall({ personaName: 'iris', query: 'happy' }))[0]).toMatchObject({ content: 'Our cheerful neighbour waved' });
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-embed-secret-7781');
    await writeMemorySettings(defaultMemorySettings);
  });
});
