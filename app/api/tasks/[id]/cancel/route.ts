import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { taskJson } from '@/lib/store/tasks-repository';
import { taskParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** Stops the task's model call and tools and ends it `cancelled`; 409 when it already ended. */
export const POST = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, taskParamsSchema);
  return Response.json({ task: taskJson(await getOrchestrator().tasks.cancel(id)) });
});
