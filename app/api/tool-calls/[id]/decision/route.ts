import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getToolCall, toolCallJson } from '@/lib/store/tool-calls-repository';
import { requireVisibleSession } from '@/lib/http/web-visitor';
import { decisionBodySchema, toolCallParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/**
 * Approve (optionally with edited arguments and an always-allow rule) or deny (with a reason).
 * Applied once, on the server: 409 when the call is no longer awaiting a decision (the body's
 * `error` says what it is now) or its arguments differ from the ones the card showed.
 */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, toolCallParamsSchema);
  const body = await readJsonBody(request, decisionBodySchema);
  // Whoever is signed in (the owner, or a person on a card of their own session): the rights authority answers.
  const call = await getToolCall({ id });
  const { person } = await requireVisibleSession(request, call?.sessionId);
  const outcome = await getOrchestrator().decideToolCall({ ...body, id }, { person, via: 'page' });
  if (!outcome.ok) throw new ApiError(outcome.code === 'validation' ? 'validation_failed' : outcome.code, outcome.message);
  return Response.json({ tool_call: toolCallJson(outcome.call), rule: outcome.rule, ...(outcome.note && { note: outcome.note }) });
});
