import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { deleteSchedule, findSchedule, scheduleJson } from '@/lib/store/triggers-repository';
import { changeSchedule, patchScheduleSchema } from '@/lib/triggers/schedule-service';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid('the schedule id is a UUID') }).strict();

/** Pause, resume or edit: {state?: "active"|"paused", name?, expression?, time_zone?, action?, catch_up?}. */
export const PATCH = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const patch = await readJsonBody(request, patchScheduleSchema);
  const schedule = await findSchedule(id);
  if (!schedule) throw new ApiError('not_found', `No schedule ${id}`);
  const changed = await changeSchedule({ schedule, patch, now: new Date() });
  return Response.json({ schedule: scheduleJson(changed) });
});

export const DELETE = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  if (!(await deleteSchedule(id))) throw new ApiError('not_found', `No schedule ${id}`);
  return new Response(null, { status: 204 });
});
