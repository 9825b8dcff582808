// The Socket.IO contract, shared by server and browser. Inbound payloads are still zod-validated.
import { z } from 'zod';
import type { ApiErrorCode } from '@/lib/http/api-error';
import type { EventType, OrchestratorEvent } from '@/lib/mind/events';
import type { MessageJson } from '@/lib/store/messages-repository';

export const joinPayloadSchema = z.object({ sessionId: z.string().uuid() }).strict();
export type JoinPayload = z.infer<typeof joinPayloadSchema>;

export type JoinAck = { ok: true; lastSeq: number; bootId: string } | { ok: false; error: string };

/** The page sends over the socket it already holds: no new request, no page routing before the reply starts. */
export interface SendMessagePayload {
  sessionId: string;
  text: string;
  /** MCP resources and prompts (ARCHITECTURE §17), read on the server when the message is sent. */
  attachments?: unknown[];
}

/** Acknowledged only once the message is stored, like the REST route's 202; errors as the REST body's. */
export type SendMessageAck = { ok: true; message: MessageJson } | { ok: false; error: { code: ApiErrorCode; message: string } };

/** Whether this page watches the session's browser (issue 45 §5): frames come only while it does. */
export const browserWatchPayloadSchema = z.object({ sessionId: z.string().uuid(), on: z.boolean() }).strict();
export type BrowserWatchPayload = z.infer<typeof browserWatchPayloadSchema>;

/** A frame of the agent's browser (a JPEG, base64) and its state, to the pages that watch it. */
export interface BrowserFrameEvent {
  sessionId: string;
  data: string;
  width: number;
  height: number;
  url: string;
}
export interface BrowserStateEvent {
  sessionId: string;
  open: boolean;
  taken_over: boolean;
  url: string | null;
  tabs: number;
}

export type ServerToClientEvents = {
  [K in EventType]: (event: Extract<OrchestratorEvent, { type: K }>) => void;
} & {
  'browser:frame': (event: BrowserFrameEvent) => void;
  'browser:state': (event: BrowserStateEvent) => void;
};

/** Events that are not the mind's: the session's reducer does not read them. */
export const VIEW_EVENTS = new Set(['browser:frame', 'browser:state']);

export interface ClientToServerEvents {
  join: (payload: JoinPayload, ack: (result: JoinAck) => void) => void;
  leave: (payload: JoinPayload) => void;
  'send-message': (payload: SendMessagePayload, ack: (result: SendMessageAck) => void) => void;
  'browser:watch': (payload: BrowserWatchPayload) => void;
}

export function sessionRoom(sessionId: string): string {
  return `session:${sessionId}`;
}

export function browserRoom(sessionId: string): string {
  return `browser:${sessionId}`;
}

/** Where a session's events go for a page that sees that it exists but not its words (issue 61 §6). */
export function sessionMetaRoom(sessionId: string): string {
  return `session-meta:${sessionId}`;
}

/** The events that carry no words: its state, its cost, its cards (the owner decides those). */
export const WORDLESS_EVENTS: ReadonlySet<string> = new Set(['session-status', 'session-updated', 'session-deleted', 'mind-state', 'tool-call', 'usage', 'allowance.notice']);
