import { handle, parseParams, parseSearchParams } from '@/lib/http/route-helpers';
import { ApiError } from '@/lib/http/api-error';
import { findSession } from '@/lib/store/sessions-repository';
import { listToolCalls, toolCallJson } from '@/lib/store/tool-calls-repository';
import { sessionParamsSchema } from '../schema';
import { toolCallsQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

/** The session's tool calls, oldest first (cards waiting for a decision among them). */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const { status } = parseSearchParams(request, toolCallsQuerySchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const calls = await listToolCalls({ sessionId: id, ...(status && { status }) });
  return Response.json({ tool_calls: calls.map(toolCallJson) });
});
