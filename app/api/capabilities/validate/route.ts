import { graphBodySchema } from '@/lib/capabilities/graph-api';
import { validateGraph } from '@/lib/capabilities/validate';
import { handle, readJsonBody } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

/** Validates a graph without saving it: every error with its code and path. */
export const POST = handle(async (request) => {
  const body = await readJsonBody(request, graphBodySchema);
  const checked = validateGraph(body.graph);
  return Response.json({ ok: checked.ok, errors: checked.errors });
});
