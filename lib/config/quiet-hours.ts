// Quiet hours (issues 28 and 74): a span of the day, in a time zone, when the agent's unprompted
// words wait — for one chat (its binding) or for a person (every chat of theirs and their phone).
// An answer the person asked for and a card someone must decide still go out.
import { z } from 'zod';
import { timeZoneSchema } from './time-zone';

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'times are HH:MM');

export const quietHoursSchema = z.object({ from: clock, to: clock, time_zone: timeZoneSchema }).strict();

export type QuietHours = z.infer<typeof quietHoursSchema>;

/** Minutes to wait until the quiet hours end, or 0 outside them. */
export function quietMinutesLeft(quiet: QuietHours | null | undefined, now: Date): number {
  if (!quiet) return 0;
  const toMinutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: quiet.time_zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const minute = Number(parts.find((part) => part.type === 'hour')!.value) * 60 + Number(parts.find((part) => part.type === 'minute')!.value);
  const from = toMinutes(quiet.from);
  const to = toMinutes(quiet.to);
  const inside = from <= to ? minute >= from && minute < to : minute >= from || minute < to;
  return inside ? (to - minute + 1440) % 1440 : 0;
}

/** The longest wait of several quiet hours that hold now (a chat's and its person's), in minutes. */
export function longestQuiet(spans: readonly (QuietHours | null | undefined)[], now: Date): number {
  return Math.max(0, ...spans.map((span) => quietMinutesLeft(span, now)));
}
