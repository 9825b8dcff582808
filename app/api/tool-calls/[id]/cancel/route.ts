import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getToolCall } from '@/lib/store/tool-calls-repository';
import { requireVisibleSession } from '@/lib/http/web-visitor';
import { toolCallParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The Stop button on one running call; `cancelled: false` when it is not running. */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, toolCallParamsSchema);
  await requireVisibleSession(request, (await getToolCall({ id }))?.sessionId);
  return Response.json({ cancelled: await getOrchestrator().cancelToolCall(id) });
});
