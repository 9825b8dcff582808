// Memory shared on purpose (issue 42 §3), through the real orchestrator, store, routes and the
// obedient fake model: what Alice's conversation remembers stays hers — Bob remembering the same
// words gets his own memory, never "already remembered" with hers (that answer would confirm a
// guess) — until the owner marks it shared on the Memory page (PATCH shared), and private again.
// The agent may ask to share (`remember` with scope "shared"): a card, approved by the owner only,
// that no allow rule approves on its own; approved, the memory is recalled in Bob's conversation.
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as memoryItem from '@/app/api/memories/[id]/route';
import { appendMemory, findMemory, listMemories } from '@/lib/memory/memory-store';
import { recall } from '@/lib/memory/recall';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { personForSender } from '@/lib/store/people-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { insertRule } from '@/lib/store/tool-rules-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { obedientScript } from '@/test/fakes/obedient-model';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { iris: '# Iris\nA helpful assistant.\n' } });
let model: FakeOpenAIServer;
let aliceSession = '';
let bobSession = '';

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: obedientScript });
  await startOrchestrator();
  const layer = { backend: 'openai_compatible' as const, model: 'obedient', max_tokens: 256, endpoint: `${model.url}/v1` };
  const models = { c_model: layer, s_model: layer };
  const alice = (await personForSender({ sender: 'telegram:11', name: '@alice', role: 'trusted' })).id;
  const bob = (await personForSender({ sender: 'telegram:22', name: '@bob', role: 'trusted' })).id;
  aliceSession = (await getOrchestrator().createSession({ persona: 'iris', name: 'Alice', models }, { people: [alice] })).id;
  bobSession = (await getOrchestrator().createSession({ persona: 'iris', name: 'Bob', models }, { people: [bob] })).id;
}, 30_000);
afterAll(async () => {
  await stopOrchestrator();
  await model?.close();
});

const patch = (id: number, body: unknown) =>
  memoryItem.PATCH(new Request(`http://127.0.0.1:3000/api/memories/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), { params: Promise.resolve({ id: String(id) }) });
const bobRecalls = async (query: string) => (await recall({ personaName: 'iris', query, k: 20, embedder: null, forSession: bobSession })).map((hit) => hit.content);

describe('memory shared on purpose', () => {
  it('the same words remembered by two people are two memories; the owner shares one and takes it back', async () => {
    const hers = await appendMemory({ personaName: 'iris', content: 'The spare key is under the blue flowerpot', sessionId: aliceSession });
    const his = await appendMemory({ personaName: 'iris', content: 'The spare key is under the blue flowerpot.', sessionId: bobSession });
    expect(his.created).toBe(true);
    expect(his.memory.id).not.toBe(hers.memory.id);
    const again = await appendMemory({ personaName: 'iris', content: 'the spare key is under the blue flowerpot', sessionId: aliceSession });
    expect(again).toMatchObject({ created: false, memory: { id: hers.memory.id } });

    const secret = (await appendMemory({ personaName: 'iris', content: 'Alice keeps her passport in the red drawer', sessionId: aliceSession })).memory;
    expect(await bobRecalls('passport drawer')).not.toContain(secret.content);
    const shared = await patch(secret.id, { shared: true });
    expect(shared.status).toBe(200);
    expect(((await shared.json()) as { memory: { shared: boolean } }).memory.shared).toBe(true);
    expect(await bobRecalls('passport drawer')).toContain(secret.content);
    expect((await patch(secret.id, { shared: false })).status).toBe(200);
    expect(await bobRecalls('passport drawer')).not.toContain(secret.content);
    // The owner's page lists it with its conversation either way.
    expect((await findMemory(secret.id))?.sessionId).toBe(aliceSession);
    const bad = await patch(secret.id, { shared: 'yes' });
    expect(bad.status).toBe(400);
  }, 30_000);

  it("the agent's shared memory waits for the owner's card — no allow rule passes it — then every conversation recalls it", async () => {
    // Even a rule that allows `remember` in her session does not share on its own.
    await insertRule({ scope: 'session', sessionId: aliceSession, tool: 'remember', effect: 'allow', matcher: { kind: 'tool' } });
    await getOrchestrator().sendUserMessage(aliceSession, { text: 'Please [[do remember {"content":"The book club meets on Fridays at the library","scope":"shared"}]]' });
    const card = async () => (await listToolCalls({ sessionId: aliceSession })).find((call) => call.name === 'remember');
    await expect.poll(async () => (await card())?.status, { timeout: 20_000 }).toBe('awaiting_approval');
    expect(await bobRecalls('book club Fridays')).toEqual([]);
    const call = (await card())!;
    expect((await getOrchestrator().decideToolCall({ id: call.id, decision: 'approve', args_hash: call.argsHash, session_id: aliceSession }, await ownerActor())).ok).toBe(true);
    await expect.poll(async () => (await card())?.status, { timeout: 20_000 }).toBe('succeeded');
    const memory = (await listMemories({ personaName: 'iris' })).find((candidate) => candidate.content.includes('book club'));
    expect(memory).toMatchObject({ shared: true, sessionId: aliceSession });
    expect(await bobRecalls('book club Fridays')).toContain('The book club meets on Fridays at the library');

    // A private `remember` needs no card, and stays hers.
    await getOrchestrator().sendUserMessage(aliceSession, { text: 'Also [[do remember {"content":"Alice is allergic to hazelnuts"}]]' });
    await expect.poll(async () => (await listMemories({ personaName: 'iris' })).some((candidate) => candidate.content.includes('hazelnuts')), { timeout: 20_000 }).toBe(true);
    expect(await bobRecalls('allergic hazelnuts')).toEqual([]);
  }, 60_000);
});
