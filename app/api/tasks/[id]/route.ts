import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { taskJson } from '@/lib/store/tasks-repository';
import { taskParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, taskParamsSchema);
  return Response.json({ task: taskJson(await getOrchestrator().tasks.require(id)) });
});
