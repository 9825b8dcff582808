// Memory as a user meets it, through the real orchestrator, routes, store and the fake model:
// said in one session, used in the next session of the same persona (never another persona's);
// a memory added on the Memory page reaches the next prompt, forgetting it takes it out of the
// prompt and out of the database file; every bad request a clear 4xx.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as memories from '@/app/api/memories/route';
import * as memoryItem from '@/app/api/memories/[id]/route';
import * as recallRoute from '@/app/api/personas/[name]/recall/route';
import * as exporter from '@/app/api/sessions/[id]/export/route';
import * as importer from '@/app/api/sessions/import/route';
import { appendMemory, forgetMemory, listMemories } from '@/lib/memory/memory-store';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n', other: '# Other\n' } });
let fake: FakeOpenAIServer;
let events: EventRecorder;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ script: mindScript });
  events = new EventRecorder((await startOrchestrator()).bus);
});
afterAll(async () => {
  events.close();
  await stopOrchestrator();
  await fake.close();
});

const base = 'http://127.0.0.1:3000';
const json = (method: string, body: unknown) => new Request(`${base}/x`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });

async function say(persona: string, text: string, sessionId?: string) {
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  const id = sessionId ?? (await getOrchestrator().createSession({ persona, models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } })).id;
  const before = fake.requests.length;
  await getOrchestrator().sendUserMessage(id, { text });
  await events.waitFor('turn-end', { where: (event) => event.sessionId === id, count: events.of('turn-end', id).length + 1, timeoutMs: 15_000 });
  const prompt = fake.requests.slice(before).find((request) => !request.system.includes('You are the Subconscious') && request.lastUserText.includes(text))!.lastUserText;
  return { sessionId: id, prompt };
}

async function expectError(response: Response, status: number, code: string, pattern: RegExp) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(pattern);
}

describe('memory across sessions', () => {
  it('what the user said in one session reaches the next session of the same persona, and no other', async () => {
    await say('tester', 'My dog is called Biscuit and he loves the beach');
    const next = await say('tester', 'What is my dog called again?');
    expect(next.prompt).toMatch(/<memory>From earlier conversations[\s\S]*My dog is called Biscuit and he loves the beach[\s\S]*<\/memory>/);
    expect(getOrchestrator().lastPrompts(next.sessionId)?.internal?.user).toContain('My dog is called Biscuit');
    const stranger = await say('other', 'What is my dog called again?');
    expect(stranger.prompt).not.toContain('<memory>');

    const found = (await (await recallRoute.GET(new Request(`${base}/x?q=dog%20beach`), { params: Promise.resolve({ name: 'tester' }) })).json()) as { results: { kind: string; content: string; why: string }[] };
    expect(found.results[0]).toMatchObject({ kind: 'message', content: 'My dog is called Biscuit and he loves the beach' });
  }, 30_000);

  it('a memory added for the persona reaches the next prompt; forgetting it takes it out of the prompt and the database file', async () => {
    const created = await memories.POST(json('POST', { persona: 'tester', content: 'The dog is allergic to chicken zqxcanary5521', importance: 0.9 }), undefined);
    expect(created.status).toBe(201);
    const { memory } = (await created.json()) as { memory: { id: number } };
    const again = await memories.POST(json('POST', { persona: 'tester', content: 'the dog is allergic to chicken zqxcanary5521.' }), undefined);
    expect(again.status).toBe(200); // the same memory, not a second one

    const first = await say('tester', 'Can the dog eat chicken zqxcanary5521?');
    expect(first.prompt).toContain(`[fact #${memory.id}`);
    const listed = (await (await memories.GET(new Request(`${base}/x?persona=tester&q=chicken`), undefined)).json()) as { memories: { id: number }[] };
    expect(listed.memories.map((item) => item.id)).toContain(memory.id);

    expect((await memoryItem.DELETE(new Request(`${base}/x`, { method: 'DELETE' }), idContext(String(memory.id)))).status).toBe(200);
    const after = await say('tester', 'Can the dog eat chicken zqxcanary5521?', first.sessionId);
    expect(after.prompt).not.toContain(`#${memory.id}`);
    await expectError(await memoryItem.GET(new Request(`${base}/x`), idContext(String(memory.id))), 404, 'not_found', /does not exist/);
  }, 30_000);

  it('a fact that changed shows its history', async () => {
    const coffee = (await (await memories.POST(json('POST', { persona: 'tester', content: 'The user likes coffee' }), undefined)).json()) as { memory: { id: number } };
    const tea = (await (await memories.POST(json('POST', { persona: 'tester', content: 'The user switched to tea', supersedes: coffee.memory.id }), undefined)).json()) as { memory: { id: number } };
    const read = (await (await memoryItem.GET(new Request(`${base}/x`), idContext(String(tea.memory.id)))).json()) as { history: { content: string }[] };
    expect(read.history.map((item) => item.content)).toEqual(['The user likes coffee']);
    const current = (await (await memories.GET(new Request(`${base}/x?persona=tester`), undefined)).json()) as { memories: { content: string }[] };
    expect(current.memories.map((item) => item.content)).not.toContain('The user likes coffee');
    const pinned = (await (await memoryItem.PATCH(json('PATCH', { pinned: true }), idContext(String(tea.memory.id)))).json()) as { memory: { pinned: boolean } };
    expect(pinned.memory.pinned).toBe(true);
  });

  it('export carries the memories a session created; import brings them back for the persona', async () => {
    const { sessionId } = await say('tester', 'Remember the blue umbrella');
    const { memory } = await appendMemory({ personaName: 'tester', content: 'The user owns a blue umbrella', sessionId, importance: 0.8 });
    const exported = (await (await exporter.GET(new Request(`${base}/x?format=json`), idContext(sessionId))).json()) as { memories: { content: string; importance: number }[] };
    expect(exported.memories).toEqual([expect.objectContaining({ content: 'The user owns a blue umbrella', importance: 0.8, kind: 'fact', scope: 'long' })]);
    await forgetMemory(memory.id);
    const imported = await importer.POST(new Request(`${base}/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(exported) }), undefined);
    expect(imported.status).toBe(201);
    const { session } = (await imported.json()) as { session: { id: string } };
    expect((await listMemories({ sessionId: session.id })).map((item) => item.content)).toEqual(['The user owns a blue umbrella']);
  }, 30_000);

  it('bad requests: a clear 4xx that changes nothing', async () => {
    await expectError(await memories.POST(json('POST', { persona: '../etc', content: 'x' }), undefined), 400, 'validation_failed', /persona/);
    await expectError(await memories.POST(json('POST', { persona: 'tester', content: '   ' }), undefined), 400, 'validation_failed', /content must not be empty/);
    await expectError(await memories.POST(json('POST', { persona: 'tester', content: 'x', kind: 'secret' }), undefined), 400, 'validation_failed', /kind/);
    await expectError(await memories.POST(json('POST', { persona: 'tester', content: 'a\u0000b' }), undefined), 400, 'validation_failed', /must not contain NUL characters/);
    await expectError(await memoryItem.PATCH(json('PATCH', { content: '\u0000' }), idContext('1')), 400, 'validation_failed', /must not contain NUL characters/);
    await expectError(await memories.POST(json('POST', { persona: 'tester', content: 'x', supersedes: 999999 }), undefined), 404, 'not_found', /999999/);
    await expectError(await memories.GET(new Request(`${base}/x?q=dog`), undefined), 400, 'validation_failed', /q needs persona/);
    await expectError(await memoryItem.PATCH(json('PATCH', {}), idContext('1')), 400, 'validation_failed', /nothing to change/);
    await expectError(await memoryItem.DELETE(new Request(`${base}/x`, { method: 'DELETE' }), idContext('abc')), 404, 'not_found', /positive integer/);
    await expectError(await recallRoute.GET(new Request(`${base}/x?q=`), { params: Promise.resolve({ name: 'tester' }) }), 400, 'validation_failed', /q must not be empty/);
  });

  it('the forgotten canary is nowhere in the database file or the WAL', async () => {
    await closeDb();
    for (const name of fs.readdirSync(dirs.dataDir).filter((file) => file.startsWith('agentcsd.db'))) {
      const bytes = fs.readFileSync(path.join(dirs.dataDir, name));
      // The user's own messages that said it stay (they are the conversation); the memory's text does not.
      expect(bytes.includes('The dog is allergic to chicken zqxcanary5521'), name).toBe(false);
    }
  });
});
