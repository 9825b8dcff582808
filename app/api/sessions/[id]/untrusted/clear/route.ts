// The owner has read the session and vouches for what it holds (§20, issue 44 §4): the latest turn's
// mark goes, and the messages and summaries written from untrusted content count as the owner's own
// from now on — in the mind's window and where they are recalled.
import { handle, parseParams } from '@/lib/http/route-helpers';
import { ApiError } from '@/lib/http/api-error';
import { sessionJson } from '@/lib/http/session-json';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { findSession } from '@/lib/store/sessions-repository';
import { clearSessionUntrusted } from '@/lib/store/untrusted-repository';
import { sessionParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  await clearSessionUntrusted(id);
  getOrchestrator().vouchForSession(id);
  return Response.json({ session: sessionJson((await findSession({ id }))!) });
});
