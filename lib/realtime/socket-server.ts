// Socket.IO on the app's HTTP server: the handshake passes the same Host/Origin/token guard as
// HTTP requests; clients join one room per session and receive the orchestrator's events.
import { deliverMessage, seeSession, type Actor } from '@/lib/people/rights';
import { actsAsOwner, seeWords } from '@/lib/people/web-reach';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { findPerson, onWordsChanged, OWNER_ID } from '@/lib/store/people-repository';
import { sessionSecret, signedIn } from '@/lib/web-auth/web-sessions';
import type { Presence } from '@/lib/web-auth/presence';
import { reportPoolErrors } from '@/lib/store/pg-errors';
import { Server } from 'socket.io';
import { ApiError, toApiError, validationError } from '@/lib/http/api-error';
import { z } from 'zod';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { sendMessageFields, wordsOrFile } from '@/lib/http/session-inputs';
import { messageJson } from '@/lib/store/messages-repository';
import { wordlessCall } from '@/lib/store/tool-call-json';
import type { GuardOptions } from '@/lib/security/request-guard';
import { guardRequest } from '@/lib/security/http-entry';
import { LiveView } from '@/lib/browser/live-view';
import {
  browserRoom,
  browserWatchPayloadSchema,
  joinPayloadSchema,
  sessionMetaRoom,
  sessionRoom,
  WORDLESS_EVENTS,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from './socket-events';
import { processSlot } from '@/lib/process/process-state';
import { errorText } from '@/lib/errors/error-text';
import { regroupSockets } from './socket-regroup';

const sendMessagePayloadSchema = wordsOrFile(z.object({ ...sendMessageFields, ...joinPayloadSchema.shape }).strict());

/** The person a handshake signed in as (absent: the owner's token, or an app that needs none). */
const visitors = processSlot('realtime.visitors', () => new WeakMap<IncomingMessage, { personId: string; secret: string }>()).value;
/** How often a signed-in socket's session is looked at again: signed out, revoked or forgotten, it is closed. */
const RECHECK_MS = 5_000;

/** Who acts on a socket: its signed-in person, read again per event (forgotten, they are nobody; demoted, their new role). */
async function actorOf(request: IncomingMessage): Promise<Actor> {
  return { person: await findPerson(visitors.get(request)?.personId ?? OWNER_ID), via: 'page' };
}

/** Whether this socket may see the session: the owner every one, a person their own (else it does not exist for them). */
async function mayWatch(request: IncomingMessage, sessionId: string, words = false, known?: Actor): Promise<boolean> {
  const actor = known ?? (await actorOf(request));
  if (actor.person === null || (await seeSession(actor, sessionId)).verdict !== 'allow') return false;
  return !words || (await seeWords(actor.person, sessionId)).verdict === 'allow';
}

export async function attachSocketServer(input: {
  httpServer: HttpServer;
  orchestrator: Orchestrator;
  guard: GuardOptions;
  /** Counts each person's open pages (the push notifier leaves those who see it live alone). */
  presence?: Presence;
  /** Several processes on one PostgreSQL: an event reaches the browsers of every one (Socket.IO's adapter). */
  postgresUrl?: string;
}): Promise<Server<ClientToServerEvents, ServerToClientEvents>> {
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(input.httpServer, {
    serveClient: false,
    // Browsers always send Origin on a WebSocket handshake but not on a same-origin polling
    // GET, so WebSocket is the one transport: every handshake can be held to the Origin rule.
    transports: ['websocket'],
    // CORS is not authentication: allowRequest below is what refuses foreign pages.
    allowRequest: (request, callback) => {
      // A handshake opens a channel that can act: held to the mutating-request rules. Never throws.
      const verdict = guardRequest(request, input.guard, 'POST');
      if (verdict.ok && !input.guard.accessToken && sessionSecret(request.headers.cookie)) {
        // An app that needs no token: a browser signed in as a person is that person, never the owner (issue 75 §2).
        const secret = sessionSecret(request.headers.cookie)!;
        signedIn(secret, new Date()).then(
          (session) => {
            if (session && !actsAsOwner(session.person)) visitors.set(request, { personId: session.person.id, secret });
            callback(null, true);
          },
          () => callback('The sign-in could not be checked', false),
        );
        return;
      }
      if (verdict.ok || verdict.code !== 'unauthorized') {
        callback(verdict.ok ? null : verdict.message, verdict.ok);
        return;
      }
      // No owner's token: a browser signed in with a passkey (issue 61) acts as its person.
      signedIn(sessionSecret(request.headers.cookie), new Date()).then(
        (session) => {
          if (session) visitors.set(request, { personId: session.person.id, secret: sessionSecret(request.headers.cookie)! });
          callback(session ? null : verdict.message, Boolean(session));
        },
        () => callback(verdict.message, false),
      );
    },
  });

  if (input.postgresUrl) {
    // The adapter's LISTEN connection is checked out of this pool for good: its loss is reported here, then it reconnects.
    // Loaded only for an app on PostgreSQL: an app on SQLite never holds the driver for this.
    const [{ createAdapter }, { default: pg }] = await Promise.all([import('@socket.io/postgres-adapter'), import('pg')]);
    const pool = reportPoolErrors(new pg.Pool({ connectionString: input.postgresUrl, max: 2 }), (message) => console.error('[socket] the PostgreSQL adapter connection failed', message));
    io.adapter(createAdapter(pool, { errorHandler: (error) => console.error('[socket] PostgreSQL adapter', error.message) }));
    io.engine.on('close', () => void pool.end());
  }

  // The agent's browser, to the pages that watch it (issue 45 §5): only while one does.
  const live = new LiveView(input.orchestrator.browser, {
    frame: (sessionId, frame) => io.to(browserRoom(sessionId)).emit('browser:frame', { sessionId, ...frame }),
    state: (sessionId, state) => io.to(browserRoom(sessionId)).emit('browser:state', { sessionId, ...state }),
  });
  io.engine.on('close', () => live.close());

  // Pages follow the words rule as it changes: at once here, on the next recheck for a change made by another process.
  const regroup = (sessions: readonly string[] | 'all') => regroupSockets(io, (socket) => actorOf(socket.request), sessions).catch((error: unknown) => console.error('[socket] could not regroup', errorText(error)));
  const stopListening = onWordsChanged(regroup);
  io.engine.on('close', stopListening);

  // A person's browsers end with their session (signed out, passkey revoked, forgotten, demoted).
  const recheck = setInterval(() => {
    void regroup('all');
    for (const socket of io.sockets.sockets.values()) {
      const visitor = visitors.get(socket.request);
      if (!visitor) continue;
      void signedIn(visitor.secret, new Date()).then(
        (session) => {
          if (!session || session.person.id !== visitor.personId) socket.disconnect(true);
        },
        () => {},
      );
    }
  }, RECHECK_MS);
  recheck.unref();
  io.engine.on('close', () => clearInterval(recheck));

  io.on('connection', (socket) => {
    const watching = new Set<string>();
    const personId = visitors.get(socket.request)?.personId ?? OWNER_ID;
    input.presence?.opened(personId);
    socket.on('disconnect', () => input.presence?.closed(personId));
    socket.on('browser:watch', (payload) => {
      const parsed = browserWatchPayloadSchema.safeParse(payload);
      if (!parsed.success) return;
      const { sessionId, on } = parsed.data;
      if (on && !watching.has(sessionId)) {
        watching.add(sessionId);
        // The agent's browser shows what the conversation reads: its words' rule (issue 61 §6).
        void mayWatch(socket.request, sessionId, true).then((may) => {
          if (!may || !watching.has(sessionId)) return void watching.delete(sessionId);
          void socket.join(browserRoom(sessionId));
          void live.watch(sessionId);
        });
      } else if (!on && watching.delete(sessionId)) {
        void socket.leave(browserRoom(sessionId));
        void live.unwatch(sessionId);
      }
    });
    socket.on('disconnect', () => {
      for (const sessionId of watching) void live.unwatch(sessionId);
      watching.clear();
    });
    socket.on('join', async (payload, ack) => {
      const parsed = joinPayloadSchema.safeParse(payload);
      const reply = typeof ack === 'function' ? ack : () => {};
      if (!parsed.success) {
        reply({ ok: false, error: 'join needs { sessionId: <uuid> }' });
        return;
      }
      if (!(await mayWatch(socket.request, parsed.data.sessionId).catch(() => false))) {
        reply({ ok: false, error: 'not_found' });
        return;
      }
      // The owner, with people's words kept their own: the session's state, cost and cards only.
      const actor = await actorOf(socket.request);
      const wordless = actor.person !== null && (await seeWords(actor.person, parsed.data.sessionId)).verdict === 'refuse';
      void socket.join(wordless ? sessionMetaRoom(parsed.data.sessionId) : sessionRoom(parsed.data.sessionId));
      // The numbering of the process whose mind emits the session's events (this one, alone).
      const position = await input.orchestrator.eventPosition(parsed.data.sessionId).catch(() => ({ bootId: input.orchestrator.bus.bootId, lastSeq: input.orchestrator.bus.lastSeq(parsed.data.sessionId) }));
      reply({ ok: true, ...position });
    });
    // The same validation, store-before-ack and error shape as POST /api/sessions/:id/messages.
    socket.on('send-message', async (payload, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      const parsed = sendMessagePayloadSchema.safeParse(payload);
      if (!parsed.success) {
        reply({ ok: false, error: validationError(parsed.error, 'message').body });
        return;
      }
      try {
        const actor = await actorOf(socket.request);
        if (!(await mayWatch(socket.request, parsed.data.sessionId, false, actor))) throw new ApiError('not_found', 'Not found');
        const may = await deliverMessage(actor.person, new Date());
        if (may.verdict === 'refuse') throw new ApiError('too_many_requests', may.reason);
        const message = await input.orchestrator.sendUserMessage(parsed.data.sessionId, { text: parsed.data.text, ...(parsed.data.attachments && { attachments: parsed.data.attachments }) });
        reply({ ok: true, message: messageJson(message) });
      } catch (caught) {
        reply({ ok: false, error: toApiError(caught).body });
      }
    });
    socket.on('leave', (payload) => {
      const parsed = joinPayloadSchema.safeParse(payload);
      if (parsed.success) for (const room of [sessionRoom(parsed.data.sessionId), sessionMetaRoom(parsed.data.sessionId)]) void socket.leave(room);
    });
  });

  const unsubscribe = input.orchestrator.bus.subscribe((event) => {
    // The union is keyed by `type`; the cast keeps emit's per-event typing without a switch.
    (io.to(sessionRoom(event.sessionId)).emit as (type: string, payload: unknown) => boolean)(event.type, event);
    if (WORDLESS_EVENTS.has(event.type)) {
      const wordless = event.type === 'tool-call' ? { ...event, call: wordlessCall(event.call) } : event;
      (io.to(sessionMetaRoom(event.sessionId)).emit as (type: string, payload: unknown) => boolean)(event.type, wordless);
    }
  });
  io.engine.on('close', unsubscribe);
  return io;
}
