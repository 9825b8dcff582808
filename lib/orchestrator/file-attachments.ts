// Files a person attaches to a message (issue 33, ARCHITECTURE §19: `{kind: "file", id}`), uploaded
// first (POST /api/sessions/:id/uploads). The message carries one line per file (lib/attachments/
// file-line.ts) — its path in the workspace, what it is, its size, its id — so the agent knows it
// is there and can use it with its tools; the turn that answers it shows the model its images and
// PDFs (turn-visuals.ts). Each upload is sent once, with one message of its own session.
import { z } from 'zod';
import { fileLine } from '@/lib/attachments/file-line';
import { attachUploads, findSessionUploads, type UploadRecord } from '@/lib/store/uploads-repository';
import { attachmentsUntrustedSource, renderAttachments, type McpAttachment } from '@/lib/mcp/mcp-attachments';
import { McpServerError, type McpPool } from '@/lib/mcp/mcp-pool';
import { attachFromServer, conversationOf } from '@/lib/people/rights';

export const fileAttachmentSchema = z.object({ kind: z.literal('file'), id: z.string().uuid() }).strict();
export type FileAttachment = z.infer<typeof fileAttachmentSchema>;

export class AttachmentError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'AttachmentError';
  }
}

/** The lines to append to the message; refuses (nothing sent) a file of another session or one already sent. */
export async function describeFiles(sessionId: string, attachments: readonly FileAttachment[]): Promise<{ text: string; ids: string[] }> {
  const ids = [...new Set(attachments.map((attachment) => attachment.id))];
  const found = await findSessionUploads(sessionId, ids);
  const missing = ids.filter((id) => !found.some((upload) => upload.id === id));
  if (missing.length > 0) throw new AttachmentError('not_found', `No file ${missing[0]} in this session: upload it first`);
  const sent = found.find((upload) => upload.messageId !== null);
  if (sent) throw new AttachmentError('conflict', `${sent.name} was already sent with another message`);
  const ordered = ids.map((id) => found.find((upload) => upload.id === id)!);
  return { text: ordered.map((upload) => fileLine(upload)).join('\n'), ids };
}

/** After the message is stored: its files are marked as sent with it. */
export async function markFilesSent(sessionId: string, ids: readonly string[], messageId: number): Promise<void> {
  if (ids.length > 0) await attachUploads(sessionId, ids, messageId);
}

/** Each server asked is one the authority lets this conversation read from; else the unknown server's 404. */
async function checkServersAllowed(sessionId: string, connected: readonly string[] | undefined, attachments: readonly McpAttachment[]): Promise<void> {
  const conversation = await conversationOf(sessionId);
  for (const attachment of attachments) {
    const answer = attachFromServer(conversation, attachment.server, connected);
    if (answer.verdict === 'refuse') throw new McpServerError('not_found', answer.reason);
  }
}

/**
 * The message's text with what it attaches: MCP resources and prompts rendered, files described.
 * `connectedServers`: the MCP servers the session may use (its params, narrowed to its graph).
 */
export async function messageWithAttachments(
  pool: McpPool,
  session: { id: string; connectedServers: readonly string[] | undefined },
  input: { text: string; attachments?: readonly (McpAttachment | FileAttachment)[] },
): Promise<{ text: string; fileIds: string[]; untrustedSource: string | null }> {
  const sessionId = session.id;
  const files = (input.attachments ?? []).filter((attachment): attachment is FileAttachment => attachment.kind === 'file');
  const fromServers = (input.attachments ?? []).filter((attachment): attachment is McpAttachment => attachment.kind !== 'file');
  if (fromServers.length > 0) await checkServersAllowed(sessionId, session.connectedServers, fromServers);
  // Read now, here, so what is stored is what the model reads (and nothing is stored if one fails).
  const parts = input.text ? [input.text] : [];
  if (fromServers.length > 0) parts.push(await renderAttachments(pool, fromServers));
  const described = files.length > 0 ? await describeFiles(sessionId, files) : { text: '', ids: [] };
  if (described.text) parts.push(described.text);
  return { text: parts.join('\n\n'), fileIds: described.ids, untrustedSource: fromServers.length > 0 ? await attachmentsUntrustedSource(fromServers) : null };
}
