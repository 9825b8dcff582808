// The agent's browser from the session page (issue 45 §5): where it is, and the person taking it
// over (the agent's browser actions wait) or giving it back (what they signed into is kept).
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

const takeOverSchema = z.object({ action: z.enum(['take', 'give']) }).strict();

async function requireSession(id: string): Promise<void> {
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
}

export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await requireWords(request, id); // where the agent browses is the conversation's words (issue 72 §2.2)
  await requireSession(id);
  return Response.json({ browser: await getOrchestrator().browser.state(id) });
});

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const { action } = await readJsonBody(request, takeOverSchema);
  await requireWords(request, id);
  await requireSession(id);
  const pool = getOrchestrator().browser;
  const browser = await pool.current(id);
  if (!browser) throw new ApiError('conflict', "This session's browser is not open: the agent opens it with its first page.");
  if (action === 'take') browser.takeOver();
  else await browser.handBack();
  pool.changed(id);
  return Response.json({ browser: await pool.state(id) });
});
