// The person's own work raises no card (issue 44), measured as the issue measured it, on both
// stores: an MCP server whose descriptions the user approved, its write tool `send_report`
// auto-approved. Before: two of three sessions asking for a report raised a card anyway (the
// first call's own "report sent" marked its session, and the next sessions' recall pulled that
// session's messages in); after one session read a page with the server's read-only tool, five of
// five later sessions asked. Now: the report's declared status marks nothing, and recall no longer
// carries a mark from session to session. The turn that reads the page asks before it sends
// (what it read is in its prompt); the reader's next turn reads a placeholder instead, and does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readWholeSession } from '@/lib/store/messages-repository';
import { listToolCalls, type ToolCallJson } from '@/lib/store/tool-calls-repository';
import { sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import { literalScript } from '@/test/fakes/literal-model';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { addNewsServer } from '@/test/support/news-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const OWNER = { person: { id: 'owner', name: 'Owner', role: 'owner' as const, limits: null, rights: null, createdAt: new Date(0), identities: [] }, via: 'page' as const };

useTempAppDirs({ personas: { reporter: '# Reporter\nSends the reports the user asks for.\n' } });
let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAIServer({ script: literalScript });
  await startOrchestrator();
  await addNewsServer();
  const saved = await capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body: JSON.stringify({ graph: defaultGraph('reporter', ['news']) }), headers: { 'content-type': 'application/json' } }), { params: Promise.resolve({ name: 'reporter' }) });
  expect(saved.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await stopOrchestrator();
  await model?.close();
});

const cards: ToolCallJson[] = [];

async function newSession(): Promise<string> {
  const layer = { backend: 'openai_compatible' as const, model: 'literal', max_tokens: 256, endpoint: `${model.url}/v1` };
  const id = (await getOrchestrator().createSession({ persona: 'reporter', models: { c_model: layer, s_model: layer } })).id;
  getOrchestrator().bus.subscribe((event) => {
    if (event.type === 'tool-call' && event.sessionId === id && event.call.status === 'awaiting_approval' && !cards.some((card) => card.id === event.call.id)) {
      cards.push(event.call);
      void getOrchestrator().decideToolCall({ id: event.call.id, decision: 'approve', args_hash: event.call.args_hash, session_id: id }, OWNER);
    }
  });
  return id;
}

async function say(sessionId: string, text: string): Promise<void> {
  const replies = async () => (await readWholeSession({ sessionId })).messages.filter((message) => message.tag === 'ED_agent').length;
  const before = await replies();
  await getOrchestrator().sendUserMessage(sessionId, { text });
  await expect.poll(replies, { timeout: 30_000, interval: 50 }).toBeGreaterThan(before);
}

const report = (title: string) => `Please send the weekly report on ${title}: [[do news__send_report {"title":"${title}"}]]`;
const cardsIn = (sessionIds: string[]) => cards.filter((card) => sessionIds.includes(card.session_id));

describe("the person's own auto-approved calls", () => {
  it('three sessions each send a report: no card, and the status marks nothing', async () => {
    const sessions = [await newSession(), await newSession(), await newSession()];
    for (const [index, id] of sessions.entries()) await say(id, report(['sales', 'the sales numbers', 'sales and returns'][index]!));
    const calls = (await Promise.all(sessions.map((id) => listToolCalls({ sessionId: id })))).flat();
    expect(calls.map((call) => `${call.name} ${call.status} ${call.result}`)).toEqual(expect.arrayContaining([expect.stringMatching(/^news__send_report succeeded \{"sent":true,"report_id":\d+\}$/)]));
    expect(calls.filter((call) => call.name === 'news__send_report' && call.status === 'succeeded')).toHaveLength(3);
    expect(cardsIn(sessions)).toEqual([]);
    for (const id of sessions) expect(await sessionUntrustedSource(id)).toBeNull();
  }, 60_000);

  it('after one session reads a page, five later sessions and its own next turn send their reports without a card; a turn that reads and sends asks', async () => {
    const reader = await newSession();
    await say(reader, 'What is in the news? [[do news__read_page {"page":"markets"}]]');
    expect(await sessionUntrustedSource(reader)).toMatch(/news/);
    const later = [];
    for (const topic of ['sales', 'the markets', 'sales in the news', 'returns', 'the sales report']) {
      const id = await newSession();
      later.push(id);
      await say(id, report(topic));
    }
    expect(cardsIn(later)).toEqual([]);
    for (const id of later) expect(await sessionUntrustedSource(id)).toBeNull();

    // A turn that reads the page and then sends asks: the page is in its prompt, and the card says so.
    const both = await newSession();
    await say(both, `Read the markets page [[do news__read_page {"page":"markets"}]] and then send the weekly report on it: [[do news__send_report {"title":"markets"}]]`);
    expect(cardsIn([both]).map((card) => `${card.name} ${card.untrusted_reason}`)).toEqual([expect.stringMatching(/^news__send_report .*news/)]);
    // The reader's next turn reads a placeholder where the page was: its report goes without a card.
    await say(reader, report('what I just read'));
    expect(cardsIn([reader])).toEqual([]);
    expect(await sessionUntrustedSource(reader)).toBeNull();
  }, 120_000);
});
