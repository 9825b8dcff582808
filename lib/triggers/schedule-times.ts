// When a schedule fires (issue 29): croner computes every time — a one-shot local time or a
// five-field cron expression, both read in the schedule's IANA time zone, with croner's daylight
// saving rules (a time skipped when clocks go forward fires at the first valid minute after it, a
// time that happens twice when they go back fires once). No hand-written cron parsing here.
import { Cron } from 'croner';
import { errorText } from '@/lib/errors/error-text';

/** "2026-12-01 09:00" or "2026-12-01T09:00[:00]": a local time, read in the schedule's zone. */
const localTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)$/;

export class ScheduleExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScheduleExpressionError';
  }
}

function cronOf(kind: 'once' | 'cron', expression: string, timeZone: string): Cron {
  try {
    if (kind === 'once') {
      const match = localTime.exec(expression.trim());
      if (!match) throw new ScheduleExpressionError('a one-shot time looks like 2026-12-01 09:00');
      return new Cron(`${match[1]}T${match[2]!.length === 5 ? `${match[2]}:00` : match[2]}`, { timezone: timeZone, paused: true });
    }
    if (expression.trim().split(/\s+/).length !== 5) throw new ScheduleExpressionError('a cron expression has five fields: minute hour day-of-month month day-of-week (e.g. "0 8 * * 1-5")');
    return new Cron(expression.trim(), { timezone: timeZone, paused: true, mode: '5-part' });
  } catch (error) {
    if (error instanceof ScheduleExpressionError) throw error;
    throw new ScheduleExpressionError(`not a valid ${kind === 'once' ? 'time' : 'cron expression'}: ${errorText(error)}`);
  }
}

/** The first fire time strictly after `after`, or null when there is none (a one-shot in the past). */
export function nextFireAfter(schedule: { kind: 'once' | 'cron'; expression: string; timeZone: string }, after: Date): Date | null {
  const cron = cronOf(schedule.kind, schedule.expression, schedule.timeZone);
  if (schedule.kind === 'once') {
    const at = cron.nextRun(new Date(0));
    return at && at.getTime() > after.getTime() ? at : null;
  }
  return cron.nextRun(after);
}

