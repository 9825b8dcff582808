// Red-team round 4, §3: embeddings within the allowances. A guest whose allowance was spent made
// ten `recall` calls and each reached the (paid) embeddings endpoint, uncounted. Now the query's
// embedding reserves on the conversation's allowances first (refused: nothing is sent, recall is
// lexical this time), settles what the endpoint counted, and is a row on the `embeddings` layer of
// Spending; indexing answers to the app's and the persona's. The real store (both), recall and
// indexer, the fake OpenAI-compatible server's /v1/embeddings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { writeMemorySettings, defaultMemorySettings } from '@/lib/memory/memory-settings';
import { recall } from '@/lib/memory/recall';
import { indexPending } from '@/lib/memory/vector-index';
import { createEmbedder } from '@/lib/memory/embeddings';
import { dayFigures, replaceAllowances, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { closeDb, getDb } from '@/lib/store/db';
import { insertUserMessage, loadUsageTotals } from '@/lib/store/mind-repository';
import { addSessionPeople, personForSender } from '@/lib/store/people-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { spendingByDay } from '@/lib/store/spending-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  await writeMemorySettings({ ...defaultMemorySettings, embeddings: { endpoint: `${fake.url}/v1`, model: 'fake-embed' } });
});
afterAll(async () => {
  await fake?.close();
  await closeDb();
});

const embeddingCalls = () => fake.requests.filter((request) => request.path === '/v1/embeddings').length;

async function guestSession(): Promise<{ sessionId: string; personId: string }> {
  const sessionId = crypto.randomUUID();
  await insertSession({ id: sessionId, name: 'guest', personaName: 'keeper', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
  await insertUserMessage({ sessionId, content: 'The ferry to the island leaves at nine.', cycleNumber: 0 });
  const guest = await personForSender({ sender: `telegram:${sessionId}`, name: 'Gus', role: 'guest' });
  await addSessionPeople(sessionId, [guest.id]);
  return { sessionId, personId: guest.id };
}

describe('embeddings and the allowances', () => {
  it('a person whose allowance is spent reaches no embeddings endpoint by recalling; recall stays lexical', async () => {
    const { sessionId, personId } = await guestSession();
    const spent: AllowanceRecord = { id: 'gus', scope: 'person', scopeId: personId, usdPerDay: null, tokensPerDay: 1, timeZone: 'UTC' };
    await replaceAllowances([spent], new Date());
    const before = embeddingCalls();
    for (let attempt = 0; attempt < 10; attempt++) {
      const hits = await recall({ personaName: 'keeper', query: 'when does the ferry leave', k: 4, forSession: sessionId });
      expect(hits.map((hit) => hit.content)).toContain('The ferry to the island leaves at nine.');
    }
    expect(embeddingCalls()).toBe(before);
    expect((await loadUsageTotals({ sessionId })).embeddings.calls).toBe(0);
  });

  it('within the allowance: the call is reserved, settled at what the endpoint counted, and shown as its own layer', async () => {
    const { sessionId, personId } = await guestSession();
    const allowance: AllowanceRecord = { id: 'gus-within', scope: 'person', scopeId: personId, usdPerDay: null, tokensPerDay: 100_000, timeZone: 'UTC' };
    await replaceAllowances([allowance], new Date());
    const before = embeddingCalls();
    await recall({ personaName: 'keeper', query: 'when does the ferry leave', k: 4, forSession: sessionId });
    expect(embeddingCalls()).toBe(before + 1);
    const usage = (await loadUsageTotals({ sessionId })).embeddings;
    expect(usage.calls).toBe(1);
    expect(usage.inputTokens).toBeGreaterThan(0);
    const [day] = await dayFigures([allowance], new Date());
    expect(day!.spentTokens).toBe(usage.inputTokens); // settled at the endpoint's count
    expect(day!.reservedTokens).toBe(0);
    const [today] = (await spendingByDay({ days: 1, timeZone: 'UTC', now: new Date(), sessionId })).slice(-1);
    expect(Object.keys(today!.byLayer)).toContain('embeddings');
  });

  it('indexing answers to the app\'s allowance: spent, nothing is sent and the round says why', async () => {
    const db = await getDb();
    await db.memoryVector.deleteMany({});
    await replaceAllowances([{ id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 1, timeZone: 'UTC' }], new Date());
    const before = embeddingCalls();
    await expect(indexPending(createEmbedder({ endpoint: `${fake.url}/v1`, model: 'fake-embed' }))).rejects.toThrow(/^Embeddings were not asked: today's allowance of 1 tokens for the app cannot take this call/);
    expect(embeddingCalls()).toBe(before);
    await replaceAllowances([{ id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 1_000_000, timeZone: 'UTC' }], new Date());
    expect(await indexPending(createEmbedder({ endpoint: `${fake.url}/v1`, model: 'fake-embed' }))).toBeGreaterThan(0);
    expect(embeddingCalls()).toBeGreaterThan(before);
  });
});
