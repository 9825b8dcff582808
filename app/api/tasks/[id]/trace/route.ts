import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { taskJson } from '@/lib/store/tasks-repository';
import { toolCallJson } from '@/lib/store/tool-calls-repository';
import { taskParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** Everything the task caused under its trace id, as one JSON download. */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, taskParamsSchema);
  const trace = await getOrchestrator().tasks.trace(id);
  const body = { version: 1, trace_id: trace.task.traceId, task: taskJson(trace.task), tool_calls: trace.calls.map(toolCallJson), llm_calls: trace.llmCalls };
  return new Response(JSON.stringify(body, null, 2), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="task-${id}.json"` },
  });
});
