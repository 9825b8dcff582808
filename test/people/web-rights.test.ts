// People on the web (issue 61 §2-3): what a signed-in person reaches, asked of the rights
// authority on every route and page of the app — their own sessions and what those hold, the shared
// memories and theirs, their own spending, devices and (trusted) keys; everything else is "not
// found". Then the routes a person reaches filter what they answer, and a browser's session ends
// when it is signed out, its passkey revoked, its person demoted or forgotten. Real store, both kinds.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as keysRoute from '@/app/api/keys/route';
import * as memoriesRoute from '@/app/api/memories/route';
import * as personRoute from '@/app/api/people/[id]/route';
import * as webSessionsRoute from '@/app/api/people/[id]/web-sessions/route';
import * as personasRoute from '@/app/api/personas/route';
import * as sessionsRoute from '@/app/api/sessions/route';
import * as decisionRoute from '@/app/api/tool-calls/[id]/decision/route';
import * as devicesRoute from '@/app/api/auth/devices/route';
import * as historyRoute from '@/app/api/sessions/[id]/history/route';
import * as privacyRoute from '@/app/api/people/privacy/route';
import * as toolCallsRoute from '@/app/api/sessions/[id]/tool-calls/route';
import * as uploadsRoute from '@/app/api/sessions/[id]/uploads/route';
import * as fileRoute from '@/app/api/files/[id]/route';
import * as spendingRoute from '@/app/api/spending/route';
import * as deviceRoute from '@/app/api/auth/devices/[id]/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { appendMemory } from '@/lib/memory/memory-store';
import { getDb } from '@/lib/store/db';
import { addSessionPeople, findPerson, OWNER_ID } from '@/lib/store/people-repository';
import { seeWords, startSessionWith } from '@/lib/people/web-reach';
import { insertSession } from '@/lib/store/sessions-repository';
import { insertAgentStep } from '@/lib/store/tool-calls-repository';
import { addPasskey, createInvite, openInvite, useInvite } from '@/lib/store/web-auth-repository';
import { ACTOR_HEADER, decideEntry, WEB_SESSION_HEADER } from '@/lib/web-auth/web-entry';
import { SESSION_IDLE_MS, signedIn, signIn } from '@/lib/web-auth/web-sessions';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { everyRoute } from '@/test/support/app-routes';

useTempAppDirs({ personas: { iris: '# Iris\nWarm.\n', otto: '# Otto\nTerse.\n' } });

const ids = { alice: '', bob: '', gus: '' };
const sessions = { alice: '', bob: '', owner: '', gus: '' };
const secrets = { alice: '', bob: '', gus: '' };

async function session(name: string, persona: string, people: string[]): Promise<string> {
  const id = randomUUID();
  await insertSession({ id, name, personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
  await addSessionPeople(id, people);
  return id;
}

beforeAll(async () => {
  const db = await getDb();
  for (const [name, role] of [['alice', 'trusted'], ['bob', 'trusted'], ['gus', 'guest']] as const) {
    ids[name] = randomUUID();
    await db.person.create({ data: { id: ids[name], name: name[0]!.toUpperCase() + name.slice(1), role } });
    await addPasskey({ id: `key-${name}`, personId: ids[name], publicKey: 'AQ', counter: 0, transports: ['internal'], name: `${name}'s phone` });
    secrets[name] = await signIn({ personId: ids[name], userAgent: 'test', passkeyId: `key-${name}`, now: new Date() });
  }
  sessions.alice = await session("Alice's", 'iris', [ids.alice]);
  sessions.bob = await session("Bob's", 'iris', [ids.bob]);
  sessions.gus = await session("Gus's", 'iris', [ids.gus]);
  sessions.owner = await session("Owner's", 'otto', [OWNER_ID]);
});

const cookieOf = (secret: string) => `agentcsd_session=${secret}`;
const entry = (secret: string, method: string, pathname: string) => decideEntry({ method, pathname, search: '', cookie: cookieOf(secret), tokenOk: false, now: new Date() });

/** What a signed-in trusted person may reach (the contract of issue 61 §3, written here apart from the table it tests). */
const ALICE_MAY = [
  'GET /',
  'GET /sessions/<own>',
  'GET /memory',
  'GET /spending',
  'GET /settings',
  'GET /settings/devices',
  'GET /settings/access',
  'GET /sign-in',
  'GET /join/<token>',
  'GET /api/sessions',
  'POST /api/sessions',
  'GET /api/sessions/<own>',
  ...['history', 'tool-calls', 'elicitations', 'tasks', 'context', 'consolidations', 'browser', 'export'].map((part) => `GET /api/sessions/<own>/${part}`),
  ...['messages', 'uploads', 'voice', 'speech', 'stop-turn', 'browser', 'browser/input'].map((part) => `POST /api/sessions/<own>/${part}`),
  'POST /api/tool-calls/<id>/decision',
  'POST /api/tool-calls/<id>/cancel',
  'GET /api/files/<own>',
  'GET /api/memories',
  'GET /api/spending',
  'GET /api/personas',
  // Asking the owner for a persona (issue 75 §4): the route refuses whoever has every one already.
  'GET /api/persona-requests',
  'POST /api/persona-requests',
  'GET /api/health',
  'GET /api/keys',
  'POST /api/keys',
  'DELETE /api/keys/<id>',
  'GET /api/push/key',
  'POST /api/push/subscriptions',
  'DELETE /api/push/subscriptions',
];

describe('the app as installed: loopback, no token (issue 75 §2)', () => {
  const open = (secret: string | null, method: string, pathname: string) =>
    decideEntry({ method, pathname, search: '', cookie: secret === null ? undefined : cookieOf(secret), tokenOk: true, open: true, now: new Date() });

  it('an invited person signed in there is that person, never the owner: what she reaches is exactly what she reaches behind a token', async () => {
    expect(await open(secrets.alice, 'GET', '/api/settings')).toMatchObject({ pass: false, answer: 'not-found' });
    expect(await open(secrets.alice, 'GET', `/sessions/${sessions.owner}`)).toMatchObject({ pass: false, answer: 'not-found' });
    expect(await open(secrets.alice, 'GET', `/sessions/${sessions.alice}`)).toMatchObject({ pass: true, visitor: { kind: 'person', person: { id: ids.alice } } });
    expect(await open(secrets.gus, 'GET', '/api/keys')).toMatchObject({ pass: false, answer: 'not-found' });
    for (const { method, path: pathname } of everyRoute((param) => (param === 'id' ? sessions.alice : param === 'token' ? 'tok_0123456789abcdef' : 'iris'))) {
      const behindToken = await entry(secrets.alice, method, pathname);
      const onLoopback = await open(secrets.alice, method, pathname);
      expect(onLoopback.pass, `${method} ${pathname}`).toBe(behindToken.pass);
      if (onLoopback.pass) expect(onLoopback.visitor, `${method} ${pathname}`).toMatchObject({ kind: 'person' });
    }
  });

  it('a browser with no sign-in, a forged cookie, or the owner’s own passkey is the owner there; with a token configured, the token is the owner', async () => {
    expect(await open(null, 'GET', '/api/settings')).toEqual({ pass: true, visitor: { kind: 'owner' } });
    expect(await open('A'.repeat(43), 'GET', '/api/settings')).toEqual({ pass: true, visitor: { kind: 'owner' } });
    const ownerSecret = await signIn({ personId: OWNER_ID, userAgent: 'test', passkeyId: null, now: new Date() });
    expect(await open(ownerSecret, 'GET', '/api/settings')).toMatchObject({ pass: true, visitor: { kind: 'owner', sessionHash: expect.any(String) } });
    // The owner's token (an app that has one) outranks a person's cookie in the same browser.
    expect(await decideEntry({ method: 'GET', pathname: '/api/settings', search: '', cookie: cookieOf(secrets.alice), tokenOk: true, open: false, now: new Date() })).toEqual({ pass: true, visitor: { kind: 'owner' } });
  });
});

describe('what a signed-in person reaches (every page and route of the app)', () => {
  const fill = (own: string) => (param: string, where: string) => (param === 'id' && (where.startsWith('api/sessions') || where.startsWith('api/files')) ? own : param === 'id' && where.startsWith('sessions') ? own : param === 'token' ? 'tok_0123456789abcdef' : param === 'section' ? '__section__' : param === 'id' ? 'a1b2c3d4e5f6a7b8' : 'iris');
  const label = (method: string, pathname: string) => `${method} ${pathname.replace(sessions.alice, '<own>').replace('tok_0123456789abcdef', '<token>').replace('a1b2c3d4e5f6a7b8', '<id>')}`;

  it('Alice reaches exactly her list; every other route of the app is "not found" (or, for the auth routes, open)', async () => {
    const reached: string[] = [];
    for (const { method, path: pathname } of everyRoute(fill(sessions.alice))) {
      const decision = await entry(secrets.alice, method, pathname);
      if (pathname.startsWith('/api/auth/')) expect(decision.pass, pathname).toBe(true);
      else if (decision.pass) reached.push(label(method, pathname));
      else expect(decision, label(method, pathname)).toMatchObject({ pass: false, answer: 'not-found' });
    }
    expect(reached.sort()).toEqual([...new Set(ALICE_MAY)].filter((route) => !route.includes('/join/') || reached.includes(route)).sort());
  });

  it("the same routes with Bob's session, or the owner's, are not found for Alice", async () => {
    for (const other of [sessions.bob, sessions.owner]) {
      // (A file's route finds its session itself: a file id is not a session's.)
      for (const { method, path: pathname } of everyRoute(fill(other)).filter((route) => route.path.includes(other) && !route.path.startsWith('/api/files/'))) {
        expect(await entry(secrets.alice, method, pathname), `${method} ${pathname}`).toMatchObject({ pass: false, answer: 'not-found' });
      }
    }
  });

  it('a guest has no keys; a stranger is sent to sign in from a page and gets 401 from REST', async () => {
    for (const [method, pathname] of [['GET', '/api/keys'], ['POST', '/api/keys'], ['GET', '/settings/access']] as const) {
      expect(await entry(secrets.gus, method, pathname)).toMatchObject({ pass: false, answer: 'not-found' });
    }
    expect(await entry(secrets.gus, 'GET', `/sessions/${sessions.gus}`)).toMatchObject({ pass: true });
    const stranger = (method: string, pathname: string) => decideEntry({ method, pathname, search: '', cookie: undefined, tokenOk: false, now: new Date() });
    expect(await stranger('GET', `/sessions/${sessions.alice}`)).toEqual({ pass: false, answer: 'sign-in', location: `/sign-in?next=${encodeURIComponent(`/sessions/${sessions.alice}`)}` });
    expect(await stranger('GET', '/')).toEqual({ pass: false, answer: 'sign-in', location: '/sign-in' });
    expect(await stranger('GET', '/api/sessions')).toEqual({ pass: false, answer: 'unauthorized' });
    expect(await stranger('GET', '/sw.js')).toEqual({ pass: false, answer: 'unauthorized' });
    expect(await stranger('POST', '/api/auth/passkey/login/options')).toMatchObject({ pass: true, visitor: { kind: 'stranger' } });
    // A forged or unknown cookie is a stranger's.
    expect(await entry('A'.repeat(43), 'GET', '/api/sessions')).toEqual({ pass: false, answer: 'unauthorized' });
  });
});

const as = (personId: string, url: string, init: RequestInit = {}) =>
  new Request(`http://localhost:3000${url}`, { ...init, headers: { ...(init.body && { 'content-type': 'application/json' }), [ACTOR_HEADER]: personId, [WEB_SESSION_HEADER]: 'x', ...init.headers } });

describe('the routes a person reaches answer with what is theirs', () => {
  it('sessions: their own only', async () => {
    const { sessions: listed } = (await (await sessionsRoute.GET(as(ids.alice, '/api/sessions'), {})).json()) as { sessions: { id: string }[] };
    expect(listed.map((entry) => entry.id)).toEqual([sessions.alice]);
    const { sessions: all } = (await (await sessionsRoute.GET(as(OWNER_ID, '/api/sessions'), {})).json()) as { sessions: { id: string }[] };
    expect(all).toHaveLength(4);
  });

  it('personas: a guest those the owner gave them, not those their sessions happen to be of; a guest cannot start another', async () => {
    const names = async (personId: string) => ((await (await personasRoute.GET(as(personId, '/api/personas'), {})).json()) as { personas: { name: string }[] }).personas.map((persona) => persona.name);
    // Gus is in a session of iris, yet the owner gave him nothing: a session grants no persona (issue 72 §2.4).
    expect(await names(ids.gus)).toEqual([]);
    const db = await getDb();
    const channelId = randomUUID();
    await db.channel.create({ data: { id: channelId, kind: 'telegram', name: 'phone', config: '{}' } });
    await db.channelBinding.create({ data: { id: randomUUID(), channelId, sender: 'telegram:9', senderName: 'gus', address: '9', persona: 'iris', personId: ids.gus } });
    expect(await names(ids.gus)).toEqual(['iris']);
    expect((await names(ids.alice)).sort()).toEqual(['iris', 'otto']);
    const refused = await sessionsRoute.POST(as(ids.gus, '/api/sessions', { method: 'POST', body: JSON.stringify({ persona: 'otto' }) }), {});
    expect(refused.status).toBe(403);
    // The owner gives him otto on People (issue 75 §4): now he may start a conversation with it; taken back, he may not.
    const give = (limits: unknown) => personRoute.PATCH(new Request(`http://127.0.0.1:3000/api/people/${ids.gus}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ limits }) }), { params: Promise.resolve({ id: ids.gus }) });
    expect((await give({ personas: ['otto'] })).status).toBe(200);
    expect((await names(ids.gus)).sort()).toEqual(['iris', 'otto']);
    expect(await startSessionWith((await findPerson(ids.gus))!, 'otto')).toEqual({ verdict: 'allow' });
    expect((await give({ personas: ['no such persona!'] })).status).toBe(400);
    expect((await give(null)).status).toBe(200);
    expect(await names(ids.gus)).toEqual(['iris']);
  });

  it("memories: the shared ones and those of their conversations, never another person's", async () => {
    await appendMemory({ personaName: 'iris', content: 'Shared: the wifi is Tern', kind: 'fact', scope: 'long' });
    await appendMemory({ personaName: 'iris', content: 'Alice: likes tea', kind: 'fact', scope: 'long', sessionId: sessions.alice });
    await appendMemory({ personaName: 'iris', content: 'Bob: PIN 4242', kind: 'fact', scope: 'long', sessionId: sessions.bob });
    const contents = async (personId: string) => ((await (await memoriesRoute.GET(as(personId, '/api/memories?persona=iris'), {})).json()) as { memories: { content: string }[] }).memories.map((memory) => memory.content).sort();
    expect(await contents(ids.alice)).toEqual(['Alice: likes tea', 'Shared: the wifi is Tern']);
    expect(await contents(ids.bob)).toEqual(['Bob: PIN 4242', 'Shared: the wifi is Tern']);
    expect(await contents(OWNER_ID)).toHaveLength(3);
  });

  it("a card of someone else's conversation is not found; keys are one's own", async () => {
    const [call] = await insertAgentStep({
      sessionId: sessions.bob,
      turn: { turnId: randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p', taskId: null },
      step: 0,
      assistantText: '',
      calls: [{ id: randomUUID(), providerCallId: randomUUID(), name: 'bash', args: { command: 'ls' }, approval: 'required', status: 'awaiting_approval' }],
    });
    const decided = await decisionRoute.POST(as(ids.alice, `/api/tool-calls/${call!.id}/decision`, { method: 'POST', body: JSON.stringify({ decision: 'approve' }) }), { params: Promise.resolve({ id: call!.id }) });
    expect(decided.status).toBe(404);

    const made = await keysRoute.POST(as(ids.alice, '/api/keys', { method: 'POST', body: JSON.stringify({ name: 'laptop', personas: ['iris'], person_id: ids.bob }) }), {});
    expect(made.status).toBe(201);
    expect(((await made.json()) as { key: { person_id: string } }).key.person_id).toBe(ids.alice);
    const listed = async (personId: string) => ((await (await keysRoute.GET(as(personId, '/api/keys'), {})).json()) as { keys: unknown[] }).keys.length;
    expect(await listed(ids.alice)).toBe(1);
    expect(await listed(ids.bob)).toBe(0);
  });
});

describe('a file of a conversation', () => {
  it('is its people’s (and the owner’s): another person gets not found', async () => {
    const form = new FormData();
    form.append('file', new File(['a note for Bob'], 'note.txt', { type: 'text/plain' }));
    const made = await uploadsRoute.POST(new Request(`http://localhost:3000/api/sessions/${sessions.bob}/uploads`, { method: 'POST', body: form, headers: { [ACTOR_HEADER]: ids.bob } }), { params: Promise.resolve({ id: sessions.bob }) });
    expect(made.status).toBe(201);
    const fileId = ((await made.json()) as { file: { id: string } }).file.id;
    const fetchAs = (personId: string) => fileRoute.GET(as(personId, `/api/files/${fileId}`), { params: Promise.resolve({ id: fileId }) });
    expect((await fetchAs(ids.bob)).status).toBe(200);
    expect((await fetchAs(OWNER_ID)).status).toBe(200);
    expect((await fetchAs(ids.alice)).status).toBe(404);
    // Not yours and absent: one body (issue 72 §3), for a file and for a session's spending.
    const absent = randomUUID();
    const bodyOf = async (response: Response) => ({ status: response.status, body: ((await response.json()) as { error: { message: string } }).error.message });
    const notYours = await bodyOf(await fetchAs(ids.alice));
    const missing = await bodyOf(await fileRoute.GET(as(ids.alice, `/api/files/${absent}`), { params: Promise.resolve({ id: absent }) }));
    expect(notYours).toEqual({ status: 404, body: `No file ${fileId}` });
    expect(missing).toEqual({ status: 404, body: `No file ${absent}` });
    const spending = async (sessionId: string) => bodyOf(await spendingRoute.GET(as(ids.alice, `/api/spending?session=${sessionId}`), {}));
    expect(await spending(sessions.bob)).toEqual({ status: 404, body: `No session ${sessions.bob}` });
    expect(await spending(absent)).toEqual({ status: 404, body: `No session ${absent}` });
  });
});

describe("people's words kept their own (issue 61 §6)", () => {
  it('off by default; on, the owner sees that a person’s conversation exists and its cards, not its words nor memories from it', async () => {
    const history = (sessionId: string, personId = OWNER_ID) => historyRoute.GET(as(personId, `/api/sessions/${sessionId}/history?layer=external`), { params: Promise.resolve({ id: sessionId }) });
    const owner = (await findPerson(OWNER_ID))!;
    const detail = async (sessionId: string) => (await seeWords(owner, sessionId)).verdict === 'refuse';
    const ownerMemories = async () => ((await (await memoriesRoute.GET(as(OWNER_ID, '/api/memories?persona=iris'), {})).json()) as { memories: { content: string }[] }).memories.map((memory) => memory.content);
    expect((await history(sessions.gus)).status).toBe(200);
    expect(await detail(sessions.gus)).toBe(false);
    await appendMemory({ personaName: 'iris', content: 'Gus: allergic to cats', kind: 'fact', scope: 'long', sessionId: sessions.gus });
    expect(await ownerMemories()).toContain('Gus: allergic to cats');
    await insertAgentStep({
      sessionId: sessions.gus,
      turn: { turnId: randomUUID(), spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p', taskId: null },
      step: 0,
      assistantText: '',
      calls: [
        { id: randomUUID(), providerCallId: randomUUID(), name: 'bash', args: { command: 'cat diary.txt' }, approval: 'required', status: 'failed', result: 'GUS-DIARY-OUTPUT' },
        { id: randomUUID(), providerCallId: randomUUID(), name: 'bash', args: { command: 'ls waiting-for-a-decision' }, approval: 'required', status: 'awaiting_approval' },
      ],
    });

    const put = await privacyRoute.PUT(as(OWNER_ID, '/api/people/privacy', { method: 'PUT', body: JSON.stringify({ words_stay_private: true }) }), {});
    expect(put.status).toBe(200);
    try {
      const refused = await history(sessions.gus);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/stay with the people in it/);
      expect(await detail(sessions.gus)).toBe(true);
      expect(await ownerMemories()).not.toContain('Gus: allergic to cats');
      expect(await ownerMemories()).toContain('Shared: the wifi is Tern');
      // Its cards: what a waiting one asks (to decide it); of the others neither what they ran nor what they returned (issue 72 §2.2).
      const calls = async (personId: string) => JSON.stringify(await (await toolCallsRoute.GET(as(personId, `/api/sessions/${sessions.gus}/tool-calls`), { params: Promise.resolve({ id: sessions.gus }) })).json());
      expect(await calls(OWNER_ID)).toContain('ls waiting-for-a-decision');
      expect(await calls(OWNER_ID)).not.toContain('cat diary.txt');
      expect(await calls(OWNER_ID)).not.toContain('GUS-DIARY-OUTPUT');
      expect(await calls(ids.gus)).toContain('cat diary.txt');
      expect(await calls(ids.gus)).toContain('GUS-DIARY-OUTPUT');
      // Gus reads his own; the owner's own conversation is the owner's to read.
      expect((await history(sessions.gus, ids.gus)).status).toBe(200);
      expect((await history(sessions.owner)).status).toBe(200);
      expect(await detail(sessions.owner)).toBe(false);
    } finally {
      await privacyRoute.PUT(as(OWNER_ID, '/api/people/privacy', { method: 'PUT', body: JSON.stringify({ words_stay_private: false }) }), {});
    }
  });
});

describe('a signed-in browser ends with its passkey, its person, or a demotion', () => {
  it('is renewed on use and ends when idle too long', async () => {
    const now = new Date();
    const secret = await signIn({ personId: ids.alice, userAgent: 'laptop', passkeyId: null, now });
    expect((await signedIn(secret, new Date(now.getTime() + SESSION_IDLE_MS - 1000)))?.person.id).toBe(ids.alice);
    // Renewed at that use: still good a whole idle period later.
    expect((await signedIn(secret, new Date(now.getTime() + SESSION_IDLE_MS + 60_000)))?.person.id).toBe(ids.alice);
    expect(await signedIn(secret, new Date(now.getTime() + 3 * SESSION_IDLE_MS))).toBeNull();
  });

  it('revoking a passkey signs out the browsers it signed in; another person cannot revoke it', async () => {
    const secret = await signIn({ personId: ids.bob, userAgent: 'b', passkeyId: 'key-bob', now: new Date() });
    const otherDelete = await deviceRoute.DELETE(as(ids.alice, '/api/auth/devices/key-bob', { method: 'DELETE' }), { params: Promise.resolve({ id: 'key-bob' }) });
    expect(otherDelete.status).toBe(404);
    const { passkeys } = (await (await devicesRoute.GET(as(ids.bob, '/api/auth/devices'), {})).json()) as { passkeys: { id: string }[] };
    expect(passkeys.map((key) => key.id)).toEqual(['key-bob']);
    const revoked = await deviceRoute.DELETE(as(ids.bob, '/api/auth/devices/key-bob', { method: 'DELETE' }), { params: Promise.resolve({ id: 'key-bob' }) });
    expect(revoked.status).toBe(204);
    expect(await signedIn(secret, new Date())).toBeNull();
    expect(await signedIn(secrets.bob, new Date())).toBeNull();
  });

  it('the owner sees who is on the web — passkeys, browsers, the last sign-in — and signs a person out everywhere (issue 75 §6)', async () => {
    const phone = await signIn({ personId: ids.gus, userAgent: 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36', passkeyId: 'key-gus', now: new Date() });
    const detail = async () => (await (await personRoute.GET(as(OWNER_ID, `/api/people/${ids.gus}`), { params: Promise.resolve({ id: ids.gus }) })).json()) as { web: { passkeys: { name: string }[]; browsers: { user_agent: string }[]; last_sign_in: string | null } };
    const before = await detail();
    expect(before.web.passkeys.map((key) => key.name)).toEqual(["gus's phone"]);
    expect(before.web.browsers.length).toBeGreaterThanOrEqual(2); // the test's first sign-in and the phone
    expect(before.web.last_sign_in).not.toBeNull();
    const out = await webSessionsRoute.DELETE(as(OWNER_ID, `/api/people/${ids.gus}/web-sessions`, { method: 'DELETE' }), { params: Promise.resolve({ id: ids.gus }) });
    expect(((await out.json()) as { signed_out: number }).signed_out).toBe(before.web.browsers.length);
    expect(await signedIn(phone, new Date())).toBeNull();
    expect((await detail()).web).toMatchObject({ passkeys: [{ name: "gus's phone" }], browsers: [], last_sign_in: null });
    // A person reaches neither route.
    expect(await entry(secrets.alice, 'DELETE', `/api/people/${ids.gus}/web-sessions`)).toMatchObject({ pass: false, answer: 'not-found' });
    secrets.gus = await signIn({ personId: ids.gus, userAgent: 'test', passkeyId: 'key-gus', now: new Date() }); // for the tests after
  });

  it('demoted from trusted to guest, a person signs in again; forgotten, their browsers are strangers at once', async () => {
    const secret = await signIn({ personId: ids.alice, userAgent: 'a', passkeyId: 'key-alice', now: new Date() });
    const patch = (body: unknown) => personRoute.PATCH(as(OWNER_ID, `/api/people/${ids.alice}`, { method: 'PATCH', body: JSON.stringify(body) }), { params: Promise.resolve({ id: ids.alice }) });
    expect((await patch({ role: 'guest' })).status).toBe(200);
    expect(await signedIn(secret, new Date())).toBeNull();
    const again = await signIn({ personId: ids.alice, userAgent: 'a', passkeyId: 'key-alice', now: new Date() });
    expect((await personRoute.DELETE(as(OWNER_ID, `/api/people/${ids.alice}`, { method: 'DELETE' }), { params: Promise.resolve({ id: ids.alice }) })).status).toBe(204);
    expect(await signedIn(again, new Date())).toBeNull();
    expect(await entry(again, 'GET', '/api/sessions')).toEqual({ pass: false, answer: 'unauthorized' });
  });

  it('an invite is good once, for 24 hours', async () => {
    const now = new Date();
    await createInvite({ token: 'invite-token-0001', personId: ids.gus, expiresAt: new Date(now.getTime() + 24 * 3600_000), now });
    expect(await openInvite('invite-token-0001', now)).toBe(ids.gus);
    expect(await openInvite('invite-token-0001', new Date(now.getTime() + 25 * 3600_000))).toBeNull();
    const [first, second] = await Promise.all([useInvite('invite-token-0001', now), useInvite('invite-token-0001', now)]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await openInvite('invite-token-0001', now)).toBeNull();
    expect(await openInvite('never-made-token', now)).toBeNull();
  });
});
