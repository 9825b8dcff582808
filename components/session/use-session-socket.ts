'use client';

import { useEffect, useRef, useState } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { OrchestratorEvent } from '@/lib/orchestrator/events';
import type { ClientToServerEvents, JoinAck, ServerToClientEvents } from '@/lib/realtime/socket-events';

export type ConnectionState = 'connecting' | 'connected' | 'disconnected';

/**
 * Joins the session's room and hands every event to `onEvent`. Each (re)join reports the
 * server's boot id and last seq through `onJoined`, after which the page re-reads its state over
 * REST: events after that seq arrive live, everything before it comes from the read.
 */
export function useSessionSocket(input: {
  sessionId: string;
  onEvent: (event: OrchestratorEvent) => void;
  onJoined: (ack: Extract<JoinAck, { ok: true }>) => void;
}): ConnectionState {
  const [state, setState] = useState<ConnectionState>('connecting');
  const handlers = useRef(input);
  handlers.current = input;

  useEffect(() => {
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({ transports: ['websocket'] });
    socket.on('connect', () => {
      socket.emit('join', { sessionId: input.sessionId }, (ack) => {
        if (!ack.ok) return;
        setState('connected');
        handlers.current.onJoined(ack);
      });
    });
    socket.on('disconnect', () => setState('disconnected'));
    socket.on('connect_error', () => setState('disconnected'));
    socket.onAny((_type: string, event: OrchestratorEvent) => handlers.current.onEvent(event));
    return () => {
      socket.disconnect();
    };
  }, [input.sessionId]);

  return state;
}
