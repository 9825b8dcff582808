// Making and changing schedules, the same for the page's routes and the agent's `schedule` tool:
// the expression must give a next time (a one-shot in the past is refused), a persona has at most
// AGENTCSD_MAX_SCHEDULES active schedules, and every change is announced.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { readEnv } from '@/lib/config/env';
import { withoutNul } from '@/lib/config/text-schema';
import { findSession } from '@/lib/store/sessions-repository';
import { taskConstraintsSchema } from '@/lib/store/task-types';
import { insertScheduleWithinCap, updateSchedule, type ScheduleRecord } from '@/lib/store/triggers-repository';
import { timeZoneSchema } from '@/lib/config/time-zone';
import { nextFireAfter, ScheduleExpressionError } from './schedule-times';
import { processSlot } from '@/lib/process/process-state';

const text = (max: number) => withoutNul(z.string().trim().min(1).max(max));

export const scheduleActionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), text: text(4_000) }).strict(),
  z.object({ kind: z.literal('task'), goal: text(2_000), constraints: taskConstraintsSchema.partial().optional() }).strict(),
]);

export const createScheduleSchema = z
  .object({
    name: text(120).optional(),
    kind: z.enum(['once', 'cron']),
    expression: text(200),
    time_zone: timeZoneSchema.default('UTC'),
    action: scheduleActionSchema,
    catch_up: z.enum(['once', 'skip']).default('once'),
  })
  .strict();
export type CreateScheduleInput = z.infer<typeof createScheduleSchema>;

export const patchScheduleSchema = z
  .object({
    state: z.enum(['active', 'paused']).optional(),
    name: text(120).optional(),
    expression: text(200).optional(),
    time_zone: timeZoneSchema.optional(),
    action: scheduleActionSchema.optional(),
    catch_up: z.enum(['once', 'skip']).optional(),
  })
  .strict();

/**
 * In-process listeners (the scheduler): a schedule was made or changed here, by a route or by the
 * agent. In the process state: server.ts and Next's bundled route handlers load separate module
 * instances, and a route's change must reach the scheduler server.ts started.
 */
type ScheduleListener = (change: { created?: ScheduleRecord }) => void;
const listenersSlot = processSlot<Set<ScheduleListener> | undefined>('triggers.schedule-listeners', () => undefined);
const listeners = (listenersSlot.value ??= new Set<ScheduleListener>());

export function whenSchedulesChange(listener: ScheduleListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(change: { created?: ScheduleRecord }): void {
  for (const listener of listeners) listener(change);
}

export class ScheduleError extends Error {
  constructor(
    readonly code: 'validation' | 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'ScheduleError';
  }
}

function firstFire(schedule: { kind: 'once' | 'cron'; expression: string; timeZone: string }, now: Date): Date {
  try {
    const next = nextFireAfter(schedule, now);
    if (!next) throw new ScheduleError('validation', `${schedule.expression} (${schedule.timeZone}) is in the past`);
    return next;
  } catch (error) {
    if (error instanceof ScheduleExpressionError) throw new ScheduleError('validation', error.message);
    throw error;
  }
}

/** The refusal of one more active schedule past the persona's cap. */
function capReached(personaName: string): ScheduleError {
  return new ScheduleError('conflict', `${personaName} already has ${readEnv().AGENTCSD_MAX_SCHEDULES} active schedules (AGENTCSD_MAX_SCHEDULES): pause or delete one first`);
}

export async function createSchedule(input: { sessionId: string; body: CreateScheduleInput; createdBy: 'user' | 'agent'; now: Date }): Promise<ScheduleRecord> {
  const session = await findSession({ id: input.sessionId });
  if (!session) throw new ScheduleError('not_found', `No session ${input.sessionId}`);
  const { body } = input;
  const nextFireAt = firstFire({ kind: body.kind, expression: body.expression, timeZone: body.time_zone }, input.now);
  const name = body.name ?? (body.action.kind === 'message' ? body.action.text : body.action.goal).slice(0, 60);
  // The cap is counted in the same transaction as the insert, under the persona's lock.
  const schedule = await insertScheduleWithinCap({
    id: randomUUID(),
    sessionId: session.id,
    name,
    kind: body.kind,
    expression: body.expression,
    timeZone: body.time_zone,
    action: body.action,
    catchUp: body.catch_up,
    createdBy: input.createdBy,
    nextFireAt,
  }, { persona: session.personaName, cap: readEnv().AGENTCSD_MAX_SCHEDULES });
  if (!schedule) throw capReached(session.personaName);
  changed({ created: schedule });
  return schedule;
}

/** Pause, resume or edit: the next time is computed again from now. */
export async function changeSchedule(input: { schedule: ScheduleRecord; patch: z.infer<typeof patchScheduleSchema>; now: Date }): Promise<ScheduleRecord> {
  const { schedule, patch } = input;
  if (schedule.state === 'done' && patch.state === 'active' && !patch.expression) throw new ScheduleError('conflict', 'This one-shot schedule already fired: give it a new time to use it again');
  const kindTimes = { kind: schedule.kind, expression: patch.expression ?? schedule.expression, timeZone: patch.time_zone ?? schedule.timeZone };
  const state = patch.state ?? (schedule.state === 'done' && patch.expression ? 'active' : schedule.state);
  // Resuming counts against the persona's cap, in the same transaction as the change.
  const session = state === 'active' && schedule.state !== 'active' ? await findSession({ id: schedule.sessionId }) : null;
  const nextFireAt = state === 'active' ? firstFire(kindTimes, input.now) : schedule.nextFireAt;
  const updated = await updateSchedule(
    schedule.id,
    {
      state,
      nextFireAt,
      ...(patch.name && { name: patch.name }),
      ...(patch.expression && { expression: patch.expression }),
      ...(patch.time_zone && { timeZone: patch.time_zone }),
      ...(patch.action && { action: patch.action }),
      ...(patch.catch_up && { catchUp: patch.catch_up }),
      ...(patch.state === 'active' && { failures: 0 }),
    },
    session ? { persona: session.personaName, cap: readEnv().AGENTCSD_MAX_SCHEDULES } : undefined,
  );
  if (updated === 'cap') throw capReached(session!.personaName);
  if (!updated) throw new ScheduleError('not_found', `No schedule ${schedule.id}`);
  changed({});
  return updated;
}
