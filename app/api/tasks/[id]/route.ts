import { handle, parseParams } from '@/lib/http/route-helpers';
import { requireWords } from '@/lib/http/web-visitor';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { taskJson } from '@/lib/store/tasks-repository';
import { taskParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, taskParamsSchema);
  const task = await getOrchestrator().tasks.require(id);
  await requireWords(request, task.sessionId); // its goal, context and plan are the conversation's words (issue 72 §2.2)
  return Response.json({ task: taskJson(task) });
});
