'use client';

import type { MessageAttachment } from './composer';
import { useCallback, useEffect, useRef, useState } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { VIEW_EVENTS, type BrowserFrameEvent, type BrowserStateEvent, type ClientToServerEvents, type JoinAck, type SendMessageAck, type ServerToClientEvents } from '@/lib/realtime/socket-events';

export type ConnectionState = 'connecting' | 'connected' | 'disconnected';

/** How long a sent message may wait for the server's "stored" before the page says so. */
const sendAckTimeoutMs = 15_000;

export interface SessionSocket {
  state: ConnectionState;
  /**
   * Sends a message over the open socket (acknowledged once stored), or null when the socket is
   * not connected: the caller then uses the REST route, so a message is never queued in the
   * socket's buffer and sent twice.
   */
  send: (text: string, attachments?: MessageAttachment[]) => Promise<SendMessageAck> | null;
  /** Watches the session's browser while `on` (frames and state to `listener`); again after a reconnect. */
  watchBrowser: (listener: BrowserListener | null) => void;
}

export interface BrowserListener {
  frame(event: BrowserFrameEvent): void;
  state(event: BrowserStateEvent): void;
}

/**
 * Joins the session's room and hands every event to `onEvent`. Each (re)join reports the
 * server's boot id and last seq through `onJoined`, after which the page re-reads its state over
 * REST: events after that seq arrive live, everything before it comes from the read.
 */
export function useSessionSocket(input: {
  sessionId: string;
  onEvent: (event: OrchestratorEvent) => void;
  onJoined: (ack: Extract<JoinAck, { ok: true }>) => void;
}): SessionSocket {
  const [state, setState] = useState<ConnectionState>('connecting');
  const handlers = useRef(input);
  handlers.current = input;
  const socketRef = useRef<Socket<ServerToClientEvents, ClientToServerEvents> | null>(null);
  const browserRef = useRef<BrowserListener | null>(null);

  useEffect(() => {
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({ transports: ['websocket'] });
    socketRef.current = socket;
    socket.on('connect', () => {
      socket.emit('join', { sessionId: input.sessionId }, (ack) => {
        if (!ack.ok) return;
        setState('connected');
        handlers.current.onJoined(ack);
        if (browserRef.current) socket.emit('browser:watch', { sessionId: input.sessionId, on: true });
      });
    });
    socket.on('browser:frame', (event) => browserRef.current?.frame(event));
    socket.on('browser:state', (event) => browserRef.current?.state(event));
    socket.on('disconnect', () => setState('disconnected'));
    socket.on('connect_error', () => setState('disconnected'));
    socket.onAny((type: string, event: OrchestratorEvent) => {
      if (!VIEW_EVENTS.has(type)) handlers.current.onEvent(event);
    });
    return () => {
      socketRef.current = null;
      socket.disconnect();
    };
  }, [input.sessionId]);

  const send = useCallback(
    (text: string, attachments: MessageAttachment[] = []) => {
      const socket = socketRef.current;
      if (!socket?.connected) return null;
      return socket
        .timeout(sendAckTimeoutMs)
        .emitWithAck('send-message', { sessionId: input.sessionId, text, ...(attachments.length && { attachments }) })
        .catch(
          (): SendMessageAck => ({
            ok: false,
            error: { code: 'internal', message: `The server did not confirm the message within ${sendAckTimeoutMs / 1000} s: check the chat before sending it again.` },
          }),
        );
    },
    [input.sessionId],
  );

  const watchBrowser = useCallback(
    (listener: BrowserListener | null) => {
      const was = browserRef.current !== null;
      browserRef.current = listener;
      if (was !== (listener !== null)) socketRef.current?.emit('browser:watch', { sessionId: input.sessionId, on: listener !== null });
    },
    [input.sessionId],
  );

  return { state, send, watchBrowser };
}
