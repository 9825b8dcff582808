import { graphJson } from '@/lib/capabilities/graph-api';
import { readSessionGraph } from '@/lib/capabilities/graph-store';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The graph the session was created with (secrets masked) and what it gives; null for sessions older than graphs. */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const snapshot = await readSessionGraph(id);
  return Response.json(snapshot ? { ...graphJson(snapshot.graph, !snapshot.fromDefault), from_default: snapshot.fromDefault } : { graph: null });
});
