import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { findSession } from '@/lib/store/sessions-repository';
import { delegatedTasks, listTasks, taskJson } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The session's tasks, oldest first (history included), then those they delegated, each with its `specialist`. */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await requireWords(request, id); // a conversation's words: its people's, and the owner's unless kept their own
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const [own, delegated] = await Promise.all([listTasks({ sessionId: id }), delegatedTasks(id)]);
  return Response.json({ tasks: [...own.map(taskJson), ...delegated.map((task) => ({ ...taskJson(task), specialist: task.specialist }))] });
});

/** submit_task: starts at once when the session has no task under way, else waits `pending`. */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const body = await readJsonBody(request, submitTaskSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const task = await getOrchestrator().tasks.submit(id, body);
  return Response.json({ task: taskJson(task) }, { status: 201 });
});
