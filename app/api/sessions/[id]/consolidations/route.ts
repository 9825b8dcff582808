import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { listConsolidations } from '@/lib/memory/consolidation';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The session's latest memory consolidations (oldest first), for the Subconscious panel. */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  return Response.json({ consolidations: await listConsolidations(id) });
});
