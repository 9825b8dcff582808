import { handle, parseParams } from '@/lib/http/route-helpers';
import { sessionJson } from '@/lib/http/session-json';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const session = await getOrchestrator().resumeSession(id);
  return Response.json({ session: sessionJson(session) });
});
