// The owner has read the session and vouches for what it holds (§20, issue 44 §4): calls stop
// asking for that reason, and its messages from here on are trusted where they are recalled.
import { handle, parseParams } from '@/lib/http/route-helpers';
import { ApiError } from '@/lib/http/api-error';
import { sessionJson } from '@/lib/http/session-json';
import { findSession } from '@/lib/store/sessions-repository';
import { clearSessionUntrusted } from '@/lib/store/untrusted-repository';
import { sessionParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await clearSessionUntrusted(id))) throw new ApiError('not_found', `No session ${id}`);
  return Response.json({ session: sessionJson((await findSession({ id }))!) });
});
