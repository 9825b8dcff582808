import { z } from 'zod';
import { validationError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { listResources } from '@/lib/mcp/mcp-catalog';
import { previewResource } from '@/lib/mcp/mcp-attachments';
import { mcpServerParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

const querySchema = z.object({ uri: z.string().min(1).max(4_096).optional() }).strict();

/**
 * `{ resources: [{uri, name, mime_type, description}], templates: [...] }`; with `?uri=`, that one
 * resource as it would be attached: `{ uri, mime_type, tokens, cut, budget, preview }`.
 */
export const GET = handle(async (request, context: { params: Promise<{ name: string }> }) => {
  const { name } = parseParams(await context.params, mcpServerParamsSchema);
  const parsed = querySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw validationError(parsed.error, 'query');
  const query = parsed.data;
  const pool = getOrchestrator().mcp;
  if (query.uri) return Response.json(await previewResource(pool, name, query.uri));
  return Response.json(await listResources(pool.client(name)));
});
