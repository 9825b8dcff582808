import { z } from 'zod';
import { mcpServerNameSchema, mcpSettingsSchema, mcpToolPrefsSchema } from '@/lib/config/mcp-config';

/** A paste of `{"mcpServers": …}` alone keeps the per-tool choices and switches already stored. */
export const putMcpServersBodySchema = mcpSettingsSchema.extend({
  tools: z.record(mcpServerNameSchema, z.record(z.string().max(256), mcpToolPrefsSchema)).optional(),
  disabled: z.array(mcpServerNameSchema).max(32).optional(),
});

export const mcpServerParamsSchema = z.object({ name: mcpServerNameSchema }).strict();
