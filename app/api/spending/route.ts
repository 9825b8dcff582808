import { z } from 'zod';
import { handle } from '@/lib/http/route-helpers';
import { ApiError } from '@/lib/http/api-error';
import { timeZoneSchema } from '@/lib/config/time-zone';
import { listAllowances } from '@/lib/store/allowances-repository';
import { costliestSessions, spendingByDay, spendingByHour } from '@/lib/store/spending-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { requireVisibleSession, visitorOf } from '@/lib/http/web-visitor';

export const dynamic = 'force-dynamic';

const querySchema = z
  .object({
    days: z.coerce.number().int().min(1, 'days is 1 to 90').max(90, 'days is 1 to 90').default(30),
    session: z.string().uuid('session is a session id').optional(),
    time_zone: timeZoneSchema.optional(),
    /** Also tokens per hour by layer, the last `hours` (a day: 24, a week: 168). */
    hours: z.coerce.number().int().min(1, 'hours is 1 to 168').max(168, 'hours is 1 to 168').optional(),
  })
  .strict();

/** The last days' spending by what made the calls and by persona, and the costliest sessions; one session's with `session`. */
export const GET = handle(async (request) => {
  const parsed = querySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw new ApiError('validation_failed', `Invalid query: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ')}`);
  const { days, session, time_zone, hours } = parsed.data;
  // Absent and not theirs answer alike (issue 72 §3).
  if (session && !(await findSession({ id: session }))) throw new ApiError('not_found', `No session ${session}`);
  if (session)
    await requireVisibleSession(request, session).catch((error: unknown) => {
      throw error instanceof ApiError && error.code === 'not_found' ? new ApiError('not_found', `No session ${session}`) : error;
    });
  // A signed-in person sees what their own conversations spent (issue 61 §3); the owner everything.
  const visitor = await visitorOf(request);
  const own = !visitor.owner && visitor.person ? { personId: visitor.person.id } : {};
  // Days are the app allowance's (the owner's day), else the one asked for, else UTC.
  const timeZone = time_zone ?? (await listAllowances()).find((allowance) => allowance.scope === 'app')?.timeZone ?? 'UTC';
  const now = new Date();
  const list = await spendingByDay({ days, timeZone, now, ...(session && { sessionId: session }), ...own });
  return Response.json({
    time_zone: timeZone,
    days: list.map((day) => ({ day: day.day, usd: day.usd, tokens: day.tokens, by_layer: day.byLayer, by_persona: day.byPersona })),
    ...(hours && { hours: (await spendingByHour({ hours, now, ...(session && { sessionId: session }), ...own })).map((hour) => ({ hour: hour.hour, usd: hour.usd, tokens: hour.tokens })) }),
    ...(!session && { top_sessions: (await costliestSessions({ since: new Date(now.getTime() - days * 24 * 60 * 60 * 1000), limit: 10, ...own })).map((row) => ({ id: row.sessionId, name: row.name, persona: row.persona, usd: row.usd, tokens: row.tokens })) }),
  });
});
