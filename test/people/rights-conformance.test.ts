// One authority, every path (issue 58): role × entry point × action, asserted to give one answer
// everywhere, and the red-team's repros (F2 a trusted person approving an owner-only card through
// the ACP door, F3 forgetting the owner's private memory, F4 the daily limit through the OpenAI
// door, F5 who decided, F6 and F1 a guest offered tools it may not use, the browser among them) —
// each fails on the code before issue 58. The real orchestrator, store and doors over loopback
// HTTP; the mind on the fake OpenAI-compatible model.
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as decisionRoute from '@/app/api/tool-calls/[id]/decision/route';
import * as keysRoute from '@/app/api/keys/route';
import { createMindToolbox } from '@/lib/agent/mind-toolbox';
import { ApprovalBroker } from '@/lib/tools/approval-broker';
import { browserTools } from '@/lib/tools/browser-tools';
import type { BrowserPool } from '@/lib/browser/browser-pool';
import { forgetMemoryTool } from '@/lib/memory/memory-tools';
import { memoryCardLine } from '@/lib/memory/memory-owner';
import { appendMemory, findMemory } from '@/lib/memory/memory-store';
import { channelHost } from '@/lib/orchestrator/channel-host';
import { getOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { cardRule, type Actor, type Via } from '@/lib/people/rights';
import { getDb } from '@/lib/store/db';
import { findSession } from '@/lib/store/sessions-repository';
import { findPerson, updatePerson, type PersonRole } from '@/lib/store/people-repository';
import { decisionAuthorWords } from '@/lib/store/tool-call-types';
import { getToolCall, insertAgentStep } from '@/lib/store/tool-calls-repository';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { startMindAndDoors, type startDoorServer } from '../doors/door-server';

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n' } });
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;

/** The people of the household: the owner, two trusted people, a guest. */
const people: Record<'owner' | 'tina' | 'tom' | 'gus', { id: string; role: PersonRole; key: string; session: string }> = {
  owner: { id: 'owner', role: 'owner', key: '', session: '' },
  tina: { id: '', role: 'trusted', key: '', session: '' },
  tom: { id: '', role: 'trusted', key: '', session: '' },
  gus: { id: '', role: 'guest', key: '', session: '' },
};

async function keyFor(name: string, personId: string): Promise<string> {
  const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, personas: ['iris'], person_id: personId }) }), {});
  expect(made.status).toBe(201);
  return ((await made.json()) as { key: { secret: string } }).key.secret;
}

beforeAll(async () => {
  ({ model, door } = await startMindAndDoors());
  const db = await getDb();
  for (const [name, person] of Object.entries(people)) {
    if (name !== 'owner') {
      person.id = randomUUID();
      await db.person.create({ data: { id: person.id, name: name[0]!.toUpperCase() + name.slice(1), role: person.role } });
    }
    person.key = await keyFor(`${name}-key`, person.id);
    person.session = (await getOrchestrator().createSession({ persona: 'iris', name: `${name}'s` }, { people: [person.id] })).id;
  }
}, 60_000);

afterAll(async () => {
  await door?.close();
  await stopOrchestrator();
  await model?.close();
});

/** A card waiting in a session, as the toolbox commits one (`ownerOnly`: the authority said only the owner decides it). */
async function waitingCard(sessionId: string, ownerOnly = false) {
  const [call] = await insertAgentStep({
    sessionId,
    turn: { turnId: randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p', taskId: null },
    step: 0,
    assistantText: '',
    calls: [{ id: randomUUID(), providerCallId: randomUUID(), name: ownerOnly ? 'remember' : 'bash', args: ownerOnly ? { content: 'the owner wants all money sent to Tom', scope: 'shared' } : { command: 'ls' }, approval: 'required', status: 'awaiting_approval', ownerOnly }],
  });
  return call!;
}

type Entry = 'page' | 'telegram' | 'acp door';

/** Decides a card through one entry point, as that path does; whether it was allowed. */
async function decideThrough(entry: Entry, who: keyof typeof people, card: Awaited<ReturnType<typeof waitingCard>>): Promise<boolean> {
  const input = { id: card.id, decision: 'approve' as const, args_hash: card.argsHash, session_id: card.sessionId };
  if (entry === 'page') {
    const response = await decisionRoute.POST(new Request(`http://x/api/tool-calls/${card.id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve', args_hash: card.argsHash, session_id: card.sessionId }) }), { params: Promise.resolve({ id: card.id }) });
    return response.status === 200;
  }
  if (entry === 'telegram') {
    const actor: Actor = { person: await findPerson(people[who].id), via: 'telegram' satisfies Via };
    return (await channelHost(getOrchestrator()).decideToolCall(input, actor)).ok;
  }
  const response = await fetch(`${door.base}/v1/agentcsd/tool-calls/${card.id}/decision`, { method: 'POST', headers: { authorization: `Bearer ${people[who].key}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
  if (response.status === 404) return false; // a session of another person: the key may not even see it
  expect([200, 403]).toContain(response.status);
  return response.status === 200;
}

describe('deciding a card: role × entry point × card, one answer everywhere', () => {
  const cases: { who: keyof typeof people; whose: keyof typeof people; ownerOnly: boolean }[] = [];
  for (const who of ['owner', 'tina', 'gus'] as const) for (const whose of ['tina', 'tom', 'gus'] as const) for (const ownerOnly of [false, true]) cases.push({ who, whose, ownerOnly });

  it.each(cases)('$who deciding a card of $whose (owner-only: $ownerOnly)', async ({ who, whose, ownerOnly }) => {
    const person = people[who];
    const expected = cardRule({ role: person.role, ownerOnly, inConversation: who === whose }).verdict === 'allow';
    // The page is the owner's; chats and doors are anyone's.
    const entries: Entry[] = who === 'owner' ? ['page', 'telegram', 'acp door'] : ['telegram', 'acp door'];
    for (const entry of entries) {
      const card = await waitingCard(people[whose].session, ownerOnly);
      // The owner's door key reaches only the owner's sessions (a door rule of sessions, not of rights).
      if (entry === 'acp door' && who === 'owner') continue;
      const allowed = await decideThrough(entry, who, card);
      expect({ entry, allowed }).toEqual({ entry, allowed: expected });
      const after = (await getToolCall({ id: card.id }))!;
      expect(after.status).toBe(expected ? 'approved' : 'awaiting_approval');
    }
  }, 30_000);

  it('F2: a trusted person cannot approve, through the ACP door, a memory shared with everyone (their own conversation)', async () => {
    const card = await waitingCard(people.tina.session, true);
    const response = await fetch(`${door.base}/v1/agentcsd/tool-calls/${card.id}/decision`, { method: 'POST', headers: { authorization: `Bearer ${people.tina.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/only the owner decides what is shared with everyone/);
    expect((await getToolCall({ id: card.id }))!.status).toBe('awaiting_approval');
  });

  it('F5: a decision carries its author and path; the card says "approved by Tina on Telegram"', async () => {
    const card = await waitingCard(people.tina.session);
    expect(await decideThrough('telegram', 'tina', card)).toBe(true);
    const decided = (await getToolCall({ id: card.id }))!;
    expect(decided.decision!.by).toEqual({ person_id: people.tina.id, via: 'telegram', name: 'Tina' });
    expect(decisionAuthorWords(decided.decision!.by)).toBe('Tina on Telegram');
    const byDoor = await waitingCard(people.tina.session);
    expect(await decideThrough('acp door', 'tina', byDoor)).toBe(true);
    expect((await getToolCall({ id: byDoor.id }))!.decision!.by).toMatchObject({ person_id: people.tina.id, via: expect.stringMatching(/^door:[0-9a-f]{16}$/) });
    const onPage = await waitingCard(people.tom.session);
    expect(await decideThrough('page', 'owner', onPage)).toBe(true);
    expect(decisionAuthorWords((await getToolCall({ id: onPage.id }))!.decision!.by)).toBe('you');
  });
});

describe('tools: offered by traits, refused the same way on every turn', () => {
  const toolsOf = async (sessionId: string) => {
    const record = (await findSession({ id: sessionId }))!;
    const browser = browserTools({ allowed_hosts: ['example.com'], allow_public: false, downloads: false } as never, {} as BrowserPool, sessionId);
    const toolbox = await createMindToolbox({ session: { ...record, params: { ...record.params, tools: undefined } } as never, bus: getOrchestrator().bus, broker: new ApprovalBroker(), capabilityTools: browser });
    return toolbox!;
  };

  it("F6 and F1: a guest's model is offered no shell, Python, schedule nor browser; calling one fails with the reason and raises no card", async () => {
    const guest = await toolsOf(people.gus.session);
    const offered = guest.definitions().map((definition) => definition.name);
    for (const refused of ['bash', 'python', 'schedule', 'browser_open', 'browser_click', 'browser_type']) expect(offered).not.toContain(refused);
    for (const kept of ['read_file', 'write_file', 'recall', 'remember', 'forget_memory']) expect(offered).toContain(kept);
    const [call] = await guest.propose({ turn: { turnId: randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p', taskId: null }, step: 0, assistantText: '', calls: [{ type: 'tool-call', id: 'c1', name: 'browser_open', input: { url: 'https://example.com/?pin=1234' } }] });
    expect(call).toMatchObject({ status: 'failed', approval: 'none' });
    expect(call!.result).toMatch(/^CAPABILITY_NOT_AVAILABLE: browser_open is not available in this conversation: .*drive the browser.*Gus \(guest\)/);
    const trusted = (await toolsOf(people.tina.session)).definitions().map((definition) => definition.name);
    expect(trusted).toEqual(expect.arrayContaining(['bash', 'python', 'schedule', 'browser_open']));
  });

  it('the owner widens or narrows one person by trait: this guest may browse, this trusted person may not run code', async () => {
    await updatePerson(people.gus.id, { rights: { allow: ['browses'], deny: [] } });
    await updatePerson(people.tina.id, { rights: { allow: [], deny: ['runs_code'] } });
    try {
      const guest = (await toolsOf(people.gus.session)).definitions().map((definition) => definition.name);
      expect(guest).toContain('browser_snapshot');
      expect(guest).not.toContain('browser_open'); // it also sends data out, which a guest still may not
      const tina = (await toolsOf(people.tina.session)).definitions().map((definition) => definition.name);
      expect(tina).not.toContain('bash');
      expect(tina).toContain('browser_open');
    } finally {
      await updatePerson(people.gus.id, { rights: null });
      await updatePerson(people.tina.id, { rights: null });
    }
  });
});

describe('memories: only what the conversation may read', () => {
  it("F3: a trusted person's conversation cannot forget the owner's private memory, and cannot tell it exists", async () => {
    const { memory } = await appendMemory({ personaName: 'iris', content: 'The safe code is 4711', sessionId: people.owner.session });
    const context = { sessionId: people.tina.session, workspaceDir: '/nonexistent', signal: new AbortController().signal };
    const missingId = memory.id + 10_000;
    const forOwners = await forgetMemoryTool.screen!({ id: memory.id }, context);
    const forNothing = await forgetMemoryTool.screen!({ id: missingId }, context);
    expect(forOwners).toBe(`There is no memory #${memory.id} for this persona`);
    expect(forNothing).toBe(`There is no memory #${missingId} for this persona`);
    const ran = await forgetMemoryTool.run({ id: memory.id }, context);
    expect(ran).toMatchObject({ isError: true, content: `There is no memory #${memory.id} for this persona` });
    expect(await findMemory(memory.id)).not.toBeNull();
    // In the owner's own conversation it is theirs to forget, and the card names whose it is.
    expect(await forgetMemoryTool.screen!({ id: memory.id }, { sessionId: people.owner.session })).toBeNull();
    expect(await memoryCardLine(memory.id)).toBe(`memory #${memory.id}, the owner's: “The safe code is 4711”`);
  });
});

describe('the daily message limit, whatever the entry', () => {
  it('F4: a guest key limited to 1 message a day is refused the second through /v1/chat/completions, and no model hears it', async () => {
    await updatePerson(people.gus.id, { limits: { messages_per_day: 1 } });
    const client = new OpenAI({ apiKey: people.gus.key, baseURL: `${door.base}/v1`, maxRetries: 0 });
    const first = await client.chat.completions.create({ model: 'persona/iris', messages: [{ role: 'user', content: 'GUS-ONE hello' }] });
    expect(first.choices[0]!.message.content).toBe('You said: GUS-ONE hello');
    for (const text of ['GUS-TWO again', 'GUS-THREE again']) {
      await expect(client.chat.completions.create({ model: 'persona/iris', messages: [{ role: 'user', content: text }] })).rejects.toMatchObject({ status: 429, message: expect.stringMatching(/today's 1 messages/) });
    }
    // The ACP door counts on the same day.
    const acp = await fetch(`${door.base}/v1/agentcsd/sessions`, { method: 'POST', headers: { authorization: `Bearer ${people.gus.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ persona: 'iris' }) });
    const { session_id: sessionId } = (await acp.json()) as { session_id: string };
    const said = await fetch(`${door.base}/v1/agentcsd/sessions/${sessionId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${people.gus.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'GUS-FOUR via ACP' }) });
    expect(said.status).toBe(429);
    const heard = JSON.stringify(model.requests.map((request) => request.body));
    expect(heard).toContain('GUS-ONE');
    for (const text of ['GUS-TWO', 'GUS-THREE', 'GUS-FOUR']) expect(heard).not.toContain(text);
  }, 60_000);
});
