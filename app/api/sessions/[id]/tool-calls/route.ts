import { handle, parseParams, parseSearchParams } from '@/lib/http/route-helpers';
import { ApiError } from '@/lib/http/api-error';
import { childSessionIds, findSession } from '@/lib/store/sessions-repository';
import { listToolCalls, toolCallJson } from '@/lib/store/tool-calls-repository';
import { wordlessCall } from '@/lib/store/tool-call-json';
import { wordsHidden } from '@/lib/http/web-visitor';
import { sessionParamsSchema } from '../schema';
import { toolCallsQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

/** The session's tool calls, oldest first (cards waiting for a decision among them). */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const { status } = parseSearchParams(request, toolCallsQuerySchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const calls = await listToolCalls({ sessionId: id, ...(status && { status }) });
  // The cards raised in its specialists' sessions are shown in this chat too (issue 34).
  const children = await childSessionIds(id);
  const delegated = children.length > 0 ? await listToolCalls({ sessionId: children, approval: 'required', ...(status && { status }) }) : [];
  // The owner, with people's words kept their own (issue 61 §6): the cards to decide, not their outputs.
  const wordless = await wordsHidden(request, id);
  return Response.json({ tool_calls: [...calls, ...delegated].map(toolCallJson).map((call) => (wordless ? wordlessCall(call) : call)) });
});
