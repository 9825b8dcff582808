import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody, readLimitedBytes } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { deleteHook, updateHook } from '@/lib/store/triggers-repository';
import { HOOK_BODY_LIMIT, hookJson, receiveDelivery } from '@/lib/triggers/webhook';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid('the webhook id is a UUID') }).strict();

/**
 * A delivery from another server: no Origin, no access token (lib/security exempts this one
 * route), and nothing runs unless the hook's secret signed the raw body. 202 at once.
 */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const raw = await readLimitedBytes(request, HOOK_BODY_LIMIT);
  const orchestrator = getOrchestrator();
  const answer = await receiveDelivery({ hookId: id, headers: request.headers, raw, host: orchestrator.triggerHost });
  return Response.json(answer.body, { status: answer.status });
});

/** Enable, disable or rename (from the page: Origin and token checked like every route). */
export const PATCH = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const patch = await readJsonBody(request, z.object({ enabled: z.boolean().optional(), name: z.string().trim().min(1).max(120).optional() }).strict());
  const hook = await updateHook(id, patch);
  if (!hook) throw new ApiError('not_found', `No webhook ${id}`);
  return Response.json({ hook: hookJson(hook, new URL(request.url).origin) });
});

export const DELETE = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  if (!(await deleteHook(id))) throw new ApiError('not_found', `No webhook ${id}`);
  return new Response(null, { status: 204 });
});
