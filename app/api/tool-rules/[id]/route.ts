import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { deleteRule } from '@/lib/store/tool-rules-repository';
import { ruleParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** Revokes a rule: the next matching call asks again. */
export const DELETE = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, ruleParamsSchema);
  if (!(await deleteRule({ id }))) throw new ApiError('not_found', `No rule ${id}`);
  return new Response(null, { status: 204 });
});
