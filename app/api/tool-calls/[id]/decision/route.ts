import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { ownerActor } from '@/lib/people/rights';
import { toolCallJson } from '@/lib/store/tool-calls-repository';
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
  // The page is the owner's (its access token); the rights authority still answers, as for every path.
  const outcome = await getOrchestrator().decideToolCall({ ...body, id }, await ownerActor('page'));
  if (!outcome.ok) throw new ApiError(outcome.code === 'validation' ? 'validation_failed' : outcome.code, outcome.message);
  return Response.json({ tool_call: toolCallJson(outcome.call), rule: outcome.rule, ...(outcome.note && { note: outcome.note }) });
});
