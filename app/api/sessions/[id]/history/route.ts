import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams, parseSearchParams } from '@/lib/http/route-helpers';
import { listMoodAndCriteria, messageJson, moodAndCriteriaJson, pageMessages } from '@/lib/store/messages-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';
import { historyQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await requireWords(request, id); // a conversation's words: its people's, and the owner's unless kept their own
  const query = parseSearchParams(request, historyQuerySchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const { messages, nextBefore } = await pageMessages({
    sessionId: id,
    layer: query.layer,
    before: query.before,
    limit: query.limit,
  });
  const cycles = messages.map((message) => message.cycleNumber).filter((cycle): cycle is number => cycle !== null);
  const moodAndCriteria =
    query.layer === 'subconscious' && cycles.length > 0
      ? await listMoodAndCriteria({ sessionId: id, fromCycle: Math.min(...cycles), toCycle: Math.max(...cycles), limit: query.limit })
      : [];
  return Response.json({
    messages: messages.map(messageJson),
    mood_and_criteria: moodAndCriteria.map(moodAndCriteriaJson),
    next_before: nextBefore,
  });
});
