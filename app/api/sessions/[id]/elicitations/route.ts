import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The questions MCP servers are waiting on the user for in this session (cards in the chat). */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  return Response.json({ elicitations: getOrchestrator().elicitations.list(id) });
});
