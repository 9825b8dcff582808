import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { taskJson } from '@/lib/store/tasks-repository';
import { resumeTaskBodySchema, taskParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** resume_task: the answer to the task's question (or the go-ahead after a pause); 409 when it is not waiting for one. */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, taskParamsSchema);
  const body = await readJsonBody(request, resumeTaskBodySchema);
  return Response.json({ task: taskJson(await getOrchestrator().tasks.resume(id, body.input)) });
});
