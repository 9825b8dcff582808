import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { findSession } from '@/lib/store/sessions-repository';
import { listSchedules, scheduleJson } from '@/lib/store/triggers-repository';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid('the session id is a UUID') }).strict();

export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  await requireWords(request, id); // what a schedule will say is the conversation's words (issue 72 §2.2)
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  return Response.json({ schedules: (await listSchedules({ sessionId: id })).map(scheduleJson) });
});

/** A schedule made by the person: {kind: "once"|"cron", expression, time_zone?, action, catch_up?, name?} → 201. */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const body = await readJsonBody(request, createScheduleSchema);
  const schedule = await createSchedule({ sessionId: id, body, createdBy: 'user', now: new Date() });
  return Response.json({ schedule: scheduleJson(schedule) }, { status: 201 });
});
