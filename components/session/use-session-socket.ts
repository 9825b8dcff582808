'use client';

import { useEffect, useRef, useState } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { OrchestratorEvent } from '@/lib/orchestrator/events';
import type { ClientToServerEvents, ServerToClientEvents } from '@/lib/realtime/socket-events';

export type ConnectionState = 'connecting' | 'connected' | 'disconnected';

const eventTypes: OrchestratorEvent['type'][] = ['session-status', 'session-updated', 'session-deleted'];

/**
 * Joins the session's room and hands every event to `onEvent`. After a reconnect it calls
 * `onResync` so the page re-reads state over REST (events carry seq; gaps are refilled that way).
 */
export function useSessionSocket(input: {
  sessionId: string;
  onEvent: (event: OrchestratorEvent) => void;
  onResync: () => void;
}): ConnectionState {
  const [state, setState] = useState<ConnectionState>('connecting');
  const handlers = useRef(input);
  handlers.current = input;

  useEffect(() => {
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({ transports: ['websocket', 'polling'] });
    let joinedOnce = false;
    socket.on('connect', () => {
      socket.emit('join', { sessionId: input.sessionId }, (ack) => {
        if (!ack.ok) return;
        setState('connected');
        if (joinedOnce) handlers.current.onResync();
        joinedOnce = true;
      });
    });
    socket.on('disconnect', () => setState('disconnected'));
    socket.on('connect_error', () => setState('disconnected'));
    for (const type of eventTypes) {
      (socket.on as (name: string, listener: (event: OrchestratorEvent) => void) => void)(type, (event) => handlers.current.onEvent(event));
    }
    return () => {
      socket.disconnect();
    };
  }, [input.sessionId]);

  return state;
}
