import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { mcpServerParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** Revokes the server's tokens where it offers revocation, and forgets them: `{ revoked, error }`. */
export const POST = handle(async (_request, context: { params: Promise<{ name: string }> }) => {
  const { name } = parseParams(await context.params, mcpServerParamsSchema);
  return Response.json(await getOrchestrator().mcp.signOut(name));
});
