// What the orchestrator takes to make, change and write to a session — plain shapes of its own; the
// routes' and sockets' schemas (lib/http/session-inputs.ts) parse requests into them.
import type { LayerModelConfig, SessionParams } from '@/lib/config/model-config';
import type { McpAttachment } from '@/lib/mcp/mcp-attachments';
import type { FileAttachment } from './file-attachments';

export interface SendMessageInput {
  text: string;
  /** MCP resources and prompts, resolved when the message is sent (§17); uploaded files (§19). */
  attachments?: (McpAttachment | FileAttachment)[];
}

/** A session's own models and parameters, over the defaults in Settings. */
interface SessionSettings {
  models?: { c_model?: LayerModelConfig; s_model?: LayerModelConfig };
  params?: Partial<SessionParams>;
}

export interface CreateSessionInput extends SessionSettings {
  name?: string;
  persona: string;
}

export interface UpdateSessionInput extends SessionSettings {
  name?: string;
}

export function defaultSessionName(persona: string, now: Date): string {
  const stamp = now.toISOString().slice(0, 16).replace('T', ' ');
  return `${persona} · ${stamp}`;
}
