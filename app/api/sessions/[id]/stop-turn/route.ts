import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** Ends the reply being written; `stopped: false` when there was none. */
export const POST = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const stopped = await getOrchestrator().stopTurn(id);
  return Response.json({ stopped });
});
