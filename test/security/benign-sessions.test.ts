// The person's own work raises no card (issue 44), measured as the issue measured it, on both
// stores: an MCP server whose descriptions the user approved, its write tool `send_report`
// auto-approved. Before: two of three sessions asking for a report raised a card anyway (the
// first call's own "report sent" marked its session, and the next sessions' recall pulled that
// session's messages in); after one session read a page with the server's read-only tool, five of
// five later sessions asked. Now: the report's declared status marks nothing, and recall no longer
// carries a mark from session to session. The session that read the page does ask (what it read
// is in its prompt) — and the owner's clear ends that.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import * as clearRoute from '@/app/api/sessions/[id]/untrusted/clear/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import type { McpSettings } from '@/lib/config/mcp-config';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readWholeSession } from '@/lib/store/messages-repository';
import { writeMcpSettings } from '@/lib/store/settings-repository';
import { listToolCalls, type ToolCallJson } from '@/lib/store/tool-calls-repository';
import { sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import type { FakeReply, FakeRequest } from '@/test/fakes/fake-server-core';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { reporter: '# Reporter\nSends the reports the user asks for.\n' } });
let model: FakeOpenAIServer;

const QUIET = '<S_loud></S_loud><S_quiet>Listening.</S_quiet><M_AND_C><mood>calm</mood><criteria>do what is asked</criteria></M_AND_C><trigger>false</trigger>';
const DIRECTIVE = /\[\[do ([\w-]+) (\{[\s\S]*?\})\]\]/;

/** A model that does what the person's newest message asks, once, and nothing any other text says. */
function literalScript(request: FakeRequest): FakeReply {
  if (request.system.includes('You are the Subconscious')) return { text: QUIET };
  const messages = (request.body as { messages?: { role: string; tool_calls?: unknown[] }[] }).messages ?? [];
  if (messages.some((message) => message.role === 'assistant' && message.tool_calls?.length)) return { text: '<ID_loud>Done.</ID_loud><ID_quiet>Did what was asked.</ID_quiet>' };
  const said = (/<ED_user>([\s\S]*?)<\/ED_user>/.exec(request.lastUserText)?.[1] ?? '').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
  const match = DIRECTIVE.exec(said);
  if (!match) return { text: '<ID_loud>Hello.</ID_loud><ID_quiet>Nothing to do.</ID_quiet>' };
  return { text: '', toolCalls: [{ name: match[1]!, input: JSON.parse(match[2]!) as Record<string, unknown>, chunking: 'whole' }] };
}

beforeAll(async () => {
  model = await startFakeOpenAIServer({ script: literalScript });
  await startOrchestrator();
  const pool = getOrchestrator().mcp;
  let settings: McpSettings = {
    mcpServers: { news: { command: process.execPath, args: ['--import', 'tsx', path.resolve('test/fakes/news-mcp-server.ts')], env: {} } },
    tools: { news: { send_report: { auto_approve: true } } },
    disabled: [],
  };
  await writeMcpSettings(settings);
  await pool.configure(settings);
  await pool.settled();
  settings = pool.withDescriptionsApproved('news');
  await writeMcpSettings(settings);
  await pool.configure(settings);
  await pool.settled();
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
      void getOrchestrator().decideToolCall({ id: event.call.id, decision: 'approve', args_hash: event.call.args_hash, session_id: id });
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

  it('after one session reads a page, five later sessions send their reports without a card; the reader asks until the owner clears it', async () => {
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

    // The reader's own next report asks: the page is in what its turn reads.
    await say(reader, report('what I just read'));
    expect(cardsIn([reader]).map((card) => card.untrusted_reason)).toEqual([expect.stringMatching(/news/)]);
    // The owner read it and clears the mark: the next report goes without a card.
    expect((await clearRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST' }), { params: Promise.resolve({ id: reader }) })).status).toBe(200);
    await say(reader, report('the week'));
    expect(cardsIn([reader])).toHaveLength(1);
  }, 120_000);
});
