// Provenance on content, not on sessions (issue 44 §1–2, §4), through the real orchestrator and
// store with the fake model: what a turn wrote while its prompt held untrusted content carries the
// source, what came before and after does not; the next turn reads a placeholder in its place and
// starts clean; automatic recall leaves untrusted hits out of a turn that holds none unless one
// matched best (then the turn is untrusted and says why); the owner's clear vouches for the session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as clearRoute from '@/app/api/sessions/[id]/untrusted/clear/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { sessionUntrustedSource, untrustedMessageSources } from '@/lib/store/untrusted-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
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

async function newSession(): Promise<string> {
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  return (await getOrchestrator().createSession({ persona: 'tester', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } })).id;
}

/** Sends, waits for the turn, returns the Internal Dialog's prompt for it. */
async function say(sessionId: string, text: string, untrustedSource?: string): Promise<string> {
  const before = fake.requests.length;
  await getOrchestrator().sendUserMessage(sessionId, { text }, { untrustedSource });
  await events.waitFor('turn-end', { where: (event) => event.sessionId === sessionId, count: events.of('turn-end', sessionId).length + 1, timeoutMs: 15_000 });
  return fake.requests.slice(before).find((request) => !request.system.includes('You are the Subconscious') && request.lastUserText.includes(text))!.lastUserText;
}

describe('provenance on content', () => {
  let reader = '';
  const PAGE = 'the web host pages.example';
  const sourcesOf = async (sessionId: string) => {
    const messages = await (await getDb()).message.findMany({ where: { sessionId, tag: { in: ['ED_user', 'ED_agent'] } }, orderBy: { id: 'asc' }, select: { id: true, content: true } });
    const sources = await untrustedMessageSources(messages);
    return new Map(messages.map((message, index) => [message.content, sources[index]]));
  };

  it('marks what a turn wrote while its prompt held untrusted content; the next turn reads a placeholder and starts clean', async () => {
    reader = await newSession();
    await say(reader, 'The garden party is on Sunday at noon in the orchard');
    // Another server's words (as a webhook delivers them): the turn answering them holds them.
    await say(reader, 'The quince festival moved to Friday evening by the river', PAGE);
    expect(await sessionUntrustedSource(reader)).toBe(PAGE);
    const next = await say(reader, 'Guests of the garden party should bring jam');
    expect(await sessionUntrustedSource(reader)).toBeNull();
    expect(next).toContain(`[Withheld: written while reading ${PAGE}.`);
    expect(next).not.toContain('they said 56 characters'); // the marked turn's own thought
    const byContent = await sourcesOf(reader);
    expect(byContent.get('The garden party is on Sunday at noon in the orchard')).toBeNull();
    expect(byContent.get('The quince festival moved to Friday evening by the river')).toMatch(/written after it read the web host pages\.example/);
    expect(byContent.get('You said: The quince festival moved to Friday evening by the river')).toMatch(/written after it read the web host pages\.example/);
    expect(byContent.get('Guests of the garden party should bring jam')).toBeNull();
    expect(byContent.get('You said: Guests of the garden party should bring jam')).toBeNull();
    // A turn that holds untrusted content from its start asks anyway: it reads the earlier thoughts as written.
    const marked = await say(reader, 'A parcel arrived at the depot', 'the payload of the webhook "parcels"');
    expect(marked).toContain('they said 56 characters');
  });

  it('a clean session recalls what the reader said before it read anything, leaves out what it said after (a weaker match), and stays clean', async () => {
    const clean = await newSession();
    const prompt = await say(clean, 'When is the garden party in the orchard on Sunday at noon?');
    expect(prompt).toMatch(/<memory>[\s\S]*garden party is on Sunday[\s\S]*<\/memory>/);
    expect(prompt).not.toContain('quince');
    expect(await sessionUntrustedSource(clean)).toBeNull();
  });

  it('an untrusted message that answers best comes in, and the turn says why', async () => {
    const asking = await newSession();
    const prompt = await say(asking, 'When is the quince festival by the river?');
    expect(prompt).toContain('quince festival moved to Friday');
    expect(await sessionUntrustedSource(asking)).toMatch(/written after it read the web host pages\.example \(recalled: it matched this turn better than anything trusted\)/);
  });

  it("the owner's clear vouches for the session: its pieces are trusted and back in the window; a session that does not exist is a 404", async () => {
    const response = await clearRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST' }), { params: Promise.resolve({ id: reader }) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { session: { untrusted_source: string | null } }).session.untrusted_source).toBeNull();
    expect([...(await sourcesOf(reader)).values()].every((source) => source === null)).toBe(true);
    const next = await say(reader, 'Anything else about the party?');
    const window = /<ID_quiet_history>([\s\S]*?)<\/ID_quiet_history>/.exec(next)?.[1] ?? '';
    expect(window).not.toContain('[Withheld');
    expect(window).toContain('they said 56 characters');
    const missing = await clearRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST' }), { params: Promise.resolve({ id: '00000000-0000-4000-8000-000000000000' }) });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
