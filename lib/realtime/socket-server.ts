// Socket.IO on the app's HTTP server: the handshake passes the same Host/Origin/token guard as
// HTTP requests; clients join one room per session and receive the orchestrator's events.
import { deliverFromPage } from '@/lib/people/rights';
import type { Server as HttpServer } from 'node:http';
import { reportPoolErrors } from '@/lib/store/pg-errors';
import { Server } from 'socket.io';
import { ApiError, toApiError, validationError } from '@/lib/http/api-error';
import { z } from 'zod';
import { sendMessageFields, wordsOrFile, type Orchestrator } from '@/lib/orchestrator/orchestrator';
import { messageJson } from '@/lib/store/messages-repository';
import type { GuardOptions } from '@/lib/security/request-guard';
import { guardRequest } from '@/lib/security/http-entry';
import { LiveView } from '@/lib/browser/live-view';
import {
  browserRoom,
  browserWatchPayloadSchema,
  joinPayloadSchema,
  sessionRoom,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from './socket-events';

const sendMessagePayloadSchema = wordsOrFile(z.object({ ...sendMessageFields, ...joinPayloadSchema.shape }).strict());

export async function attachSocketServer(input: {
  httpServer: HttpServer;
  orchestrator: Orchestrator;
  guard: GuardOptions;
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
      callback(verdict.ok ? null : verdict.message, verdict.ok);
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

  io.on('connection', (socket) => {
    const watching = new Set<string>();
    socket.on('browser:watch', (payload) => {
      const parsed = browserWatchPayloadSchema.safeParse(payload);
      if (!parsed.success) return;
      const { sessionId, on } = parsed.data;
      if (on && !watching.has(sessionId)) {
        watching.add(sessionId);
        void socket.join(browserRoom(sessionId));
        void live.watch(sessionId);
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
      void socket.join(sessionRoom(parsed.data.sessionId));
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
        const may = await deliverFromPage(new Date());
        if (may.verdict === 'refuse') throw new ApiError('too_many_requests', may.reason);
        const message = await input.orchestrator.sendUserMessage(parsed.data.sessionId, { text: parsed.data.text, ...(parsed.data.attachments && { attachments: parsed.data.attachments }) });
        reply({ ok: true, message: messageJson(message) });
      } catch (caught) {
        reply({ ok: false, error: toApiError(caught).body });
      }
    });
    socket.on('leave', (payload) => {
      const parsed = joinPayloadSchema.safeParse(payload);
      if (parsed.success) void socket.leave(sessionRoom(parsed.data.sessionId));
    });
  });

  const unsubscribe = input.orchestrator.bus.subscribe((event) => {
    // The union is keyed by `type`; the cast keeps emit's per-event typing without a switch.
    (io.to(sessionRoom(event.sessionId)).emit as (type: string, payload: unknown) => boolean)(event.type, event);
  });
  io.engine.on('close', unsubscribe);
  return io;
}
