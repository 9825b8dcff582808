import { ApiError } from '@/lib/http/api-error';
import { deliverMessage } from '@/lib/people/rights';
import { visitorOf } from '@/lib/http/web-visitor';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { messageJson } from '@/lib/store/messages-repository';
import { sessionParamsSchema } from '../schema';
import { sendMessageBodySchema } from './schema';

export const dynamic = 'force-dynamic';

/** 202: the message is stored and queued; the reply streams over Socket.IO. */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const body = await readJsonBody(request, sendMessageBodySchema);
  // The signed-in person's message (the owner's on their token), asked like every other entry's.
  const may = await deliverMessage((await visitorOf(request)).person, new Date());
  if (may.verdict === 'refuse') throw new ApiError('too_many_requests', may.reason);
  const message = await getOrchestrator().sendUserMessage(id, body);
  return Response.json({ message: messageJson(message) }, { status: 202 });
});
