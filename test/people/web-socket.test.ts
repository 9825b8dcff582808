// The socket, for people on the web (issue 61 §2-3, §6), on a real Socket.IO server with the real
// guard and store: a handshake with neither the owner's token nor a session is refused; a signed-in
// person joins their own session and gets "not found" for anyone else's (join, send, watch); the
// owner joins all, but with people's words kept their own, hears only a person's session's wordless
// events; a person's socket is closed once they are forgotten. Both stores.
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { attachSocketServer } from '@/lib/realtime/socket-server';
import { getDb } from '@/lib/store/db';
import { addSessionPeople, deletePerson, writePeoplePrivacy } from '@/lib/store/people-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { signIn } from '@/lib/web-auth/web-sessions';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
const token = 'owner-token-0123456789abcdef0123456789';
let http: HttpServer;
let server: Awaited<ReturnType<typeof attachSocketServer>>;
let orchestrator: Orchestrator;
let url = '';
const ids = { alice: '', bob: '' };
const sessions = { alice: '', bob: '' };
const open: Socket[] = [];

function socket(headers: Record<string, string>): Socket {
  const made = connect(url, { transports: ['websocket'], reconnection: false, extraHeaders: { origin: url, ...headers } });
  open.push(made);
  return made;
}

const connected = (made: Socket) => new Promise<boolean>((resolve) => (made.once('connect', () => resolve(true)), made.once('connect_error', () => resolve(false))));

beforeAll(async () => {
  const db = await getDb();
  for (const name of ['alice', 'bob'] as const) {
    ids[name] = randomUUID();
    await db.person.create({ data: { id: ids[name], name, role: 'trusted' } });
    sessions[name] = randomUUID();
    await insertSession({ id: sessions[name], name: `${name}'s`, personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await addSessionPeople(sessions[name], [ids[name]]);
  }
  orchestrator = new Orchestrator({});
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;
  url = `http://127.0.0.1:${port}`;
  server = await attachSocketServer({ httpServer: http, orchestrator, guard: { port, extraHosts: [], accessToken: token } });
});

afterAll(async () => {
  for (const made of open) made.close();
  await new Promise((resolve) => server.close(resolve));
  await orchestrator.stop();
});

describe('the socket for people on the web', () => {
  it('refuses a handshake with neither token nor session; a person joins their own session and nothing else', async () => {
    expect(await connected(socket({}))).toBe(false);
    expect(await connected(socket({ cookie: `agentcsd_session=${'x'.repeat(43)}` }))).toBe(false);
    const alice = socket({ cookie: `agentcsd_session=${await signIn({ personId: ids.alice, userAgent: 't', passkeyId: null, now: new Date() })}` });
    expect(await connected(alice)).toBe(true);
    expect(await alice.timeout(5_000).emitWithAck('join', { sessionId: sessions.bob })).toEqual({ ok: false, error: 'not_found' });
    expect(await alice.timeout(5_000).emitWithAck('join', { sessionId: sessions.alice })).toMatchObject({ ok: true });
    const sent = await alice.timeout(5_000).emitWithAck('send-message', { sessionId: sessions.bob, text: 'hi Bob' });
    expect(sent).toMatchObject({ ok: false, error: { code: 'not_found' } });

    // What she hears: her session's events, never Bob's.
    const heard: string[] = [];
    alice.onAny((type: string, event: { sessionId: string }) => heard.push(`${type}:${event.sessionId}`));
    orchestrator.bus.emit('session-updated', sessions.bob, { name: 'Bob secret name' });
    orchestrator.bus.emit('session-updated', sessions.alice, { name: 'renamed' });
    await vi.waitFor(() => expect(heard).toContain(`session-updated:${sessions.alice}`));
    expect(heard.some((line) => line.endsWith(sessions.bob))).toBe(false);
  });

  it("the owner, with people's words kept their own, hears a person's session's state and cost, not its words", async () => {
    const owner = socket({ authorization: `Bearer ${token}` });
    expect(await connected(owner)).toBe(true);
    await writePeoplePrivacy({ words_stay_private: true });
    try {
      expect(await owner.timeout(5_000).emitWithAck('join', { sessionId: sessions.bob })).toMatchObject({ ok: true });
      const heard: string[] = [];
      owner.onAny((type: string, event: unknown) => heard.push(`${type} ${JSON.stringify(event)}`));
      const message = { id: 1, layer: 'external' as const, tag: 'ED_user', content: 'WORDS-CANARY-77', cycle_number: 0, turn_id: null, spontaneous: false, interrupted: false, created_at: new Date().toISOString() };
      orchestrator.bus.emit('message-persisted', sessions.bob, { message, queued: true });
      orchestrator.bus.emit('reply-delta', sessions.bob, { turnId: 't', text: 'WORDS-CANARY-77' });
      orchestrator.bus.emit('session-status', sessions.bob, { status: 'active' });
      await vi.waitFor(() => expect(heard.some((line) => line.startsWith('session-status'))).toBe(true));
      expect(heard.join('\n')).not.toContain('WORDS-CANARY-77');
    } finally {
      await writePeoplePrivacy({ words_stay_private: false });
    }
    // The owner's own view of every session, with the setting off.
    expect(await owner.timeout(5_000).emitWithAck('join', { sessionId: sessions.alice })).toMatchObject({ ok: true });
  });

  it('an owner’s page opened before the switch is moved at once: no more words, and the calls without their arguments (issue 72 §2.2)', async () => {
    const owner = socket({ authorization: `Bearer ${token}` });
    expect(await connected(owner)).toBe(true);
    expect(await owner.timeout(5_000).emitWithAck('join', { sessionId: sessions.alice })).toMatchObject({ ok: true });
    const heard: string[] = [];
    owner.onAny((type: string, event: unknown) => heard.push(`${type} ${JSON.stringify(event)}`));
    const message = (content: string) => ({ id: 1, layer: 'external' as const, tag: 'ED_user', content, cycle_number: 0, turn_id: null, spontaneous: false, interrupted: false, created_at: new Date().toISOString() });
    orchestrator.bus.emit('message-persisted', sessions.alice, { message: message('BEFORE-THE-SWITCH'), queued: true });
    await vi.waitFor(() => expect(heard.join('\n')).toContain('BEFORE-THE-SWITCH')); // the control: it hears words now
    await writePeoplePrivacy({ words_stay_private: true });
    try {
      orchestrator.bus.emit('message-persisted', sessions.alice, { message: message('AFTER-THE-SWITCH'), queued: true });
      const call = { id: randomUUID(), session_id: sessions.alice, turn_id: 't', task_id: null, trace_id: null, step: 0, position: 0, provider_call_id: 'p', name: 'remember', args: { content: 'ALICE-REMEMBERED' }, args_hash: 'h', approval: 'none' as const, status: 'succeeded' as const, decision: null, result: 'ok', is_error: false, exit_code: null, dropped_bytes: 0, created_at: new Date().toISOString(), decided_at: null, started_at: null, finished_at: null, owner_only: false, untrusted_reason: null, result_source: null };
      orchestrator.bus.emit('tool-call', sessions.alice, { call });
      orchestrator.bus.emit('session-status', sessions.alice, { status: 'active' });
      await vi.waitFor(() => expect(heard.some((line) => line.startsWith('session-status'))).toBe(true));
      await vi.waitFor(() => expect(heard.some((line) => line.startsWith('tool-call'))).toBe(true));
      expect(heard.join('\n')).not.toContain('AFTER-THE-SWITCH');
      expect(heard.join('\n')).not.toContain('ALICE-REMEMBERED');
    } finally {
      await writePeoplePrivacy({ words_stay_private: false });
    }
    // Off again: the same page hears the words at once.
    orchestrator.bus.emit('message-persisted', sessions.alice, { message: message('SWITCHED-BACK'), queued: true });
    await vi.waitFor(() => expect(heard.join('\n')).toContain('SWITCHED-BACK'));
  });

  it('a forgotten person’s socket is closed', async () => {
    const bob = socket({ cookie: `agentcsd_session=${await signIn({ personId: ids.bob, userAgent: 't', passkeyId: null, now: new Date() })}` });
    expect(await connected(bob)).toBe(true);
    const closed = new Promise<string>((resolve) => bob.once('disconnect', (reason) => resolve(reason)));
    expect(await deletePerson(ids.bob)).toBe(true);
    expect(await closed).toBe('io server disconnect');
  }, 15_000);
});

describe('the socket of the app as installed: loopback, no token (issue 75 §2)', () => {
  it('a browser signed in as a person is that person, never the owner; one without a sign-in is the owner', async () => {
    const loopback = createServer();
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    const port = (loopback.address() as { port: number }).port;
    const base = `http://127.0.0.1:${port}`;
    const io = await attachSocketServer({ httpServer: loopback, orchestrator, guard: { port, extraHosts: [] } });
    const made: Socket[] = [];
    const at = (headers: Record<string, string>) => {
      const each = connect(base, { transports: ['websocket'], reconnection: false, extraHeaders: { origin: base, ...headers } });
      made.push(each);
      return each;
    };
    try {
      const alice = at({ cookie: `agentcsd_session=${await signIn({ personId: ids.alice, userAgent: 't', passkeyId: null, now: new Date() })}` });
      expect(await connected(alice)).toBe(true);
      expect(await alice.timeout(5_000).emitWithAck('join', { sessionId: sessions.alice })).toMatchObject({ ok: true });
      const other = randomUUID();
      await insertSession({ id: other, name: 'the owner’s', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
      expect(await alice.timeout(5_000).emitWithAck('join', { sessionId: other })).toEqual({ ok: false, error: 'not_found' });
      const owner = at({});
      expect(await connected(owner)).toBe(true);
      expect(await owner.timeout(5_000).emitWithAck('join', { sessionId: other })).toMatchObject({ ok: true });
    } finally {
      for (const each of made) each.close();
      await new Promise((resolve) => io.close(resolve));
    }
  });
});
