// What a message attaches from MCP servers is a tool use (issue 72 §1). The red-team's repro: a
// guest signed in on the web posted `{ attachments: [{ kind: 'mcp_resource', server: 'ownerfiles',
// uri }] }` to their own session — whose persona's graph connects no MCP server — and got the
// owner's files and a prompt run with arguments of their choosing. Now the rights authority is
// asked: only a server the session's graph connects, only where the conversation's people may read
// with tools; anything else is answered with the very 404 of an unknown server, and nothing is
// stored. The real orchestrator, store, messages route and MCP client, on server-everything.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as messagesRoute from '@/app/api/sessions/[id]/messages/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { writePersonaGraph } from '@/lib/capabilities/graph-store';
import { getOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { attachFromServer, keyReachesPersona, personasOfKey, type Conversation } from '@/lib/people/rights';
import { getDb } from '@/lib/store/db';
import { pageMessages } from '@/lib/store/messages-repository';
import { OWNER_ID, updatePerson } from '@/lib/store/people-repository';
import { writeMcpSettings } from '@/lib/store/settings-repository';
import { ACTOR_HEADER } from '@/lib/web-auth/web-entry';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startMindAndDoors, type startDoorServer } from '../doors/door-server';

useTempAppDirs({ personas: { closed: '# Closed\nNo servers.\n', open: '# Open\nEvery server.\n' } });
const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;
const guest = randomUUID();
const sessions = { guestClosed: '', guestOpen: '', ownerClosed: '', ownerOpen: '' };
const RESOURCE = 'demo://resource/static/document/architecture.md';

beforeAll(async () => {
  await writeMcpSettings({ mcpServers: { ownerfiles: { command: process.execPath, args: [everything, 'stdio'], env: {} } }, tools: {}, disabled: [] });
  // "closed" has a graph of its own that connects no MCP server; "open" the default graph (every server).
  await writePersonaGraph('closed', defaultGraph('closed', []));
  ({ model, door } = await startMindAndDoors());
  await getOrchestrator().mcp.settled();
  expect(getOrchestrator().mcp.status().map((server) => [server.name, server.state])).toEqual([['ownerfiles', 'ready']]);
  await (await getDb()).person.create({ data: { id: guest, name: 'Gus', role: 'guest' } });
  const make = async (persona: string, person: string) => (await getOrchestrator().createSession({ persona, name: `${persona} of ${person}` }, { people: [person] })).id;
  sessions.guestClosed = await make('closed', guest);
  sessions.guestOpen = await make('open', guest);
  sessions.ownerClosed = await make('closed', OWNER_ID);
  sessions.ownerOpen = await make('open', OWNER_ID);
}, 90_000);

afterAll(async () => {
  await door?.close();
  await stopOrchestrator();
  await model?.close();
});

/** The messages route as a signed-in person's browser reaches it. */
async function post(sessionId: string, personId: string, attachments: unknown[]) {
  const request = new Request(`http://x/api/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [ACTOR_HEADER]: personId },
    body: JSON.stringify({ text: 'What does this say?', attachments }),
  });
  const response = await messagesRoute.POST(request, { params: Promise.resolve({ id: sessionId }) });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string }; message?: { content: string } } };
}

const stored = async (sessionId: string) => (await pageMessages({ sessionId, layer: 'external', limit: 100 })).messages.length;
const resource = (server = 'ownerfiles') => ({ kind: 'mcp_resource', server, uri: RESOURCE });
const prompt = { kind: 'mcp_prompt', server: 'ownerfiles', name: 'args-prompt', arguments: { city: 'the owner’s diary' } };

describe('MCP attachments ask the rights authority (issue 72 §1)', () => {
  it('the repro: a guest in a session whose graph connects no server gets the unknown server’s 404, and nothing is stored', async () => {
    const unknown = await post(sessions.guestClosed, guest, [resource('nosuch')]);
    expect(unknown.status).toBe(404);
    for (const attachment of [resource(), prompt]) {
      const before = await stored(sessions.guestClosed);
      const refused = await post(sessions.guestClosed, guest, [attachment]);
      // Word for word the unknown server's answer: nothing tells that "ownerfiles" exists, nor its state.
      expect(refused).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'No MCP server named "ownerfiles" is configured' } } });
      expect(unknown.body.error!.message.replace('nosuch', 'ownerfiles')).toBe(refused.body.error!.message);
      expect(await stored(sessions.guestClosed)).toBe(before);
    }
  });

  it('the owner too: a session may attach only from the servers its graph connects', async () => {
    expect((await post(sessions.ownerClosed, OWNER_ID, [resource()])).status).toBe(404);
    const allowed = await post(sessions.ownerOpen, OWNER_ID, [resource()]);
    expect(allowed.status).toBe(202);
    expect(allowed.body.message!.content).toContain(`<mcp_resource server="ownerfiles" uri="${RESOURCE}"`);
  });

  it('a guest where the graph connects the server reads (a guest may read with tools); with reading taken away, 404', async () => {
    const read = await post(sessions.guestOpen, guest, [resource()]);
    expect(read.status).toBe(202);
    expect(read.body.message!.content).toContain('untrusted="true"');
    await updatePerson(guest, { rights: { allow: [], deny: ['read_only'] } });
    try {
      const before = await stored(sessions.guestOpen);
      expect((await post(sessions.guestOpen, guest, [prompt])).body.error).toEqual({ code: 'not_found', message: 'No MCP server named "ownerfiles" is configured' });
      expect(await stored(sessions.guestOpen)).toBe(before);
    } finally {
      await updatePerson(guest, { rights: null });
    }
  });

  it('the rule itself, on facts: the graph’s servers, then the conversation’s traits', () => {
    const reads: Conversation = { sessionId: 's', people: [], traits: new Set(['read_only']) };
    const none: Conversation = { sessionId: 's', people: [], traits: new Set() };
    expect(attachFromServer(reads, 'a', undefined)).toEqual({ verdict: 'allow' });
    expect(attachFromServer(reads, 'a', ['a'])).toEqual({ verdict: 'allow' });
    expect(attachFromServer(reads, 'a', ['b'])).toMatchObject({ verdict: 'refuse' });
    expect(attachFromServer(none, 'a', ['a'])).toMatchObject({ verdict: 'refuse' });
  });
});

describe('a door key reaches the personas the owner gave it, that still exist (issue 72 §3: four doors checked by hand)', () => {
  it('one rule for the OpenAI, MCP and ACP doors', () => {
    const key = { personas: ['open', 'gone'] };
    expect(keyReachesPersona(key, 'open')).toBe(true);
    expect(keyReachesPersona(key, 'gone')).toBe(false); // its file was deleted
    expect(keyReachesPersona(key, 'closed')).toBe(false); // not given to this key
    expect(personasOfKey(key)).toEqual(['open']);
  });
});
