import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { listConsolidations } from '@/lib/memory/consolidation';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The session's latest memory consolidations (oldest first), for the Subconscious panel. */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await requireWords(request, id); // a conversation's words: its people's, and the owner's unless kept their own
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  return Response.json({ consolidations: await listConsolidations(id) });
});
