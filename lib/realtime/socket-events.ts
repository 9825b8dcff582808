// The Socket.IO contract, shared by server and browser. Inbound payloads are still zod-validated.
import { z } from 'zod';
import type { EventType, OrchestratorEvent } from '@/lib/orchestrator/events';

export const joinPayloadSchema = z.object({ sessionId: z.string().uuid() }).strict();
export type JoinPayload = z.infer<typeof joinPayloadSchema>;

export type JoinAck = { ok: true; lastSeq: number; bootId: string } | { ok: false; error: string };

export type ServerToClientEvents = {
  [K in EventType]: (event: Extract<OrchestratorEvent, { type: K }>) => void;
};

export interface ClientToServerEvents {
  join: (payload: JoinPayload, ack: (result: JoinAck) => void) => void;
  leave: (payload: JoinPayload) => void;
}

export function sessionRoom(sessionId: string): string {
  return `session:${sessionId}`;
}
