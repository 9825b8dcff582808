// What a session is made, changed and written to with: the inputs the REST routes and sockets
// validate before the orchestrator acts on them — what they parse is handed on as its own shapes
// (lib/orchestrator/session-changes.ts), so the compiler checks each route against them.
import { fileAttachmentSchema } from '@/lib/orchestrator/file-attachments';
import { z } from 'zod';
import { messageTextSchema } from '@/lib/config/message-text';
import { layerModelConfigSchema, sessionParamsSchema } from '@/lib/config/model-config';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { mcpAttachmentSchema } from '@/lib/mcp/mcp-attachments';

export const sendMessageFields = {
  text: messageTextSchema,
  /** MCP resources and prompts, resolved when the message is sent (§17); uploaded files (§19). */
  attachments: z.array(z.union([mcpAttachmentSchema, fileAttachmentSchema])).max(10, 'at most 10 attachments').optional(),
};

/** A file may be the whole message; anything else needs words. */
export function wordsOrFile<T extends z.ZodType<{ text: string; attachments?: { kind: string }[] }>>(schema: T): T {
  return schema.refine((input) => input.text !== '' || (input.attachments ?? []).some((attachment) => attachment.kind === 'file'), { path: ['text'], message: 'text must not be empty' }) as unknown as T;
}

export const sendMessageInputSchema = wordsOrFile(z.object(sendMessageFields).strict());

/** A session's own models and parameters, over the defaults in Settings. */
const sessionSettingsShape = {
  models: z
    .object({ c_model: layerModelConfigSchema.optional(), s_model: layerModelConfigSchema.optional() })
    .strict()
    .optional(),
  params: sessionParamsSchema.partial().optional(),
};

export const createSessionInputSchema = z
  .object({
    name: z.string().trim().max(120, 'name must be at most 120 characters').optional(),
    persona: personaNameSchema,
    ...sessionSettingsShape,
  })
  .strict();

export const updateSessionInputSchema = z
  .object({
    name: z.string().trim().min(1, 'name must not be empty').max(120, 'name must be at most 120 characters').optional(),
    ...sessionSettingsShape,
  })
  .strict();

