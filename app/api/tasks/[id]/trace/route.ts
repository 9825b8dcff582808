import { handle, parseParams } from '@/lib/http/route-helpers';
import { requireWords } from '@/lib/http/web-visitor';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { findTask, taskJson } from '@/lib/store/tasks-repository';
import { toolCallJson } from '@/lib/store/tool-calls-repository';
import type { TaskTrace } from '@/lib/tasks/task-service';
import { taskParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** One task's part of the download; a delegated task links to its parent by both ids. */
function traceJson(trace: TaskTrace, parentTraceId: string | null): Record<string, unknown> {
  return {
    trace_id: trace.task.traceId,
    parent_task_id: trace.task.parentTaskId,
    parent_trace_id: parentTraceId,
    task: taskJson(trace.task),
    tool_calls: trace.calls.map(toolCallJson),
    llm_calls: trace.llmCalls,
    children: trace.children.map((child) => traceJson(child, trace.task.traceId)),
  };
}

/** Everything the task caused under its trace id, and the tasks it delegated under theirs, as one JSON download. */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, taskParamsSchema);
  const trace = await getOrchestrator().tasks.trace(id);
  await requireWords(request, trace.task.sessionId); // every call of it is the conversation's words (issue 72 §2.2)
  const parent = trace.task.parentTaskId ? await findTask(trace.task.parentTaskId) : null;
  const body = { version: 2, ...traceJson(trace, parent?.traceId ?? null) };
  return new Response(JSON.stringify(body, null, 2), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="task-${id}.json"` },
  });
});
