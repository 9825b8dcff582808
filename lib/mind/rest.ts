// How the mind rests (issue 74; seed 003's DMN *Stored*): pure rules, like pacing.ts, so a day of
// idling is simulated in milliseconds with the real code (`npm run bench:idle`).
//
// - Something new (a message, a reply, a tool's result, a task's note): the next cycle comes at the
//   activity's pace (pacing.ts), and any rest the mind chose ends.
// - Nothing new since the last cycle: the mind may think on its own thoughts `idle_thoughts` times
//   (default 2, counting the cycle that read the news), each pause longer than the last — the
//   activity's pause, then 270 s, doubling, to a ceiling (default 6 h). After that it is *stored*:
//   no call at all until something happens. A cycle whose inputs are unchanged but for the clock is
//   never sent — unless a rest the mind chose ran out: "until 08:00" means it wants to think then.
// - `<rest>` in a cycle's output is a rest the mind chose: for how long, until a time, or until
//   something happens; bounded by the app's limits (a minute to a day).
// - Dreaming: the memory's consolidation while it rests — at night (03:00 on the server's clock,
//   a setting), or sooner after enough new material; once per stretch of news.
// - Nothing new for 14 days (a setting): dormant — no cycle, no rest it chose, no dreaming, until
//   something arrives.
// - Continuous pacing (the seed's literal loop) keeps its old rule: the next cycle at once.
import type { SessionParams } from '@/lib/config/model-config';

export const defaultRestCeilingMs = 6 * 3600_000;
export const defaultIdleThoughts = 2;
/** The first deepened pause: under the 5-minute prompt-cache lifetime, as Resting was. */
export const firstDeepRestMs = 270_000;
export const chosenRestFloorMs = 60_000;
export const chosenRestLimitMs = 24 * 3600_000;
export const defaultDormantAfterDays = 14;
/** Dreaming (consolidation while resting): at this hour of the night, on the server's clock… */
export const defaultDreamHour = 3;
/** …or sooner, once the user has been away a while, after this much news since the last dream. */
export const defaultDreamAfter = 40;

/** A rest the mind chose: until `until` (epoch ms), or until something happens (`until: null`); `quiet`: the quiet hours chose it. */
export interface ChosenRest {
  until: number | null;
  reason: string;
  quiet?: true;
}

export interface RestLimits {
  ceilingMs: number;
  idleThoughts: number;
  dormantAfterMs: number;
}

export function restLimits(params: Pick<SessionParams, 'rest_ceiling_minutes' | 'idle_thoughts' | 'dormant_after_days'>): RestLimits {
  return {
    ceilingMs: params.rest_ceiling_minutes !== undefined ? params.rest_ceiling_minutes * 60_000 : defaultRestCeilingMs,
    idleThoughts: params.idle_thoughts ?? defaultIdleThoughts,
    dormantAfterMs: (params.dormant_after_days ?? defaultDormantAfterDays) * 86_400_000,
  };
}

const UNITS: Record<string, number> = { s: 1_000, sec: 1_000, second: 1_000, m: 60_000, min: 60_000, minute: 60_000, h: 3600_000, hr: 3600_000, hour: 3600_000, d: 86_400_000, day: 86_400_000 };

/** The time of day at `at` — hours, minutes, seconds — in `timeZone`, or on the server's clock without one. */
function clockAt(at: number, timeZone: string | undefined): { hours: number; minutes: number; seconds: number } {
  if (!timeZone) {
    const date = new Date(at);
    return { hours: date.getHours(), minutes: date.getMinutes(), seconds: date.getSeconds() };
  }
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const part = (type: string) => Number(parts.find((each) => each.type === type)!.value);
  return { hours: part('hour'), minutes: part('minute'), seconds: part('second') };
}

/** `HH:MM` at `at` in the session's time zone (or on the server's clock): how the mind is told the time. */
export function clockText(at: number, timeZone?: string): string {
  const { hours, minutes } = clockAt(at, timeZone);
  return `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
}

/** The next `hh:mm` after `now` (today, or tomorrow once it has passed), in `timeZone` or on the server's clock. */
function nextClockTime(now: number, hours: number, minutes: number, timeZone?: string): number {
  if (!timeZone) {
    const at = new Date(now);
    at.setHours(hours, minutes, 0, 0);
    if (at.getTime() <= now) at.setDate(at.getDate() + 1);
    return at.getTime();
  }
  const clock = clockAt(now, timeZone);
  let ahead = hours * 60 + minutes - (clock.hours * 60 + clock.minutes);
  const startOfMinute = now - clock.seconds * 1_000 - (now % 1_000);
  if (ahead <= 0) ahead += 1_440;
  return startOfMinute + ahead * 60_000;
}

/** The next `hour:00` after `after` (the session's time zone, or the server's clock): when a resting mind dreams. */
export function nextDreamAt(after: number, hour: number, timeZone?: string): number {
  return nextClockTime(after, hour, 0, timeZone);
}

/**
 * When a resting mind dreams (issue 74 §4): never twice on the same news; with enough new material
 * (`dreamAfter` pieces of news since the last dream) as soon as the user has been away `awayMs`;
 * otherwise at the night's hour after that. Null: nothing new to dream on.
 */
export function dreamAt(input: { newsSeen: number; dreamtAtNews: number; lastUserAt: number; awayMs: number; hour: number; dreamAfter: number; timeZone?: string }): number | null {
  if (input.dreamtAtNews === input.newsSeen) return null;
  const away = input.lastUserAt + input.awayMs;
  const material = input.newsSeen - Math.max(0, input.dreamtAtNews);
  return material >= input.dreamAfter ? away : nextDreamAt(away, input.hour, input.timeZone);
}

/**
 * A `<rest>` tag's words: "for 2h", "for 90 minutes", "until 08:00", "until 7:30 pm", "until they
 * speak" (or anything else after "until": something must happen), a reason after a dash, a colon or
 * "because". Null for empty or unreadable words (no rest: the mind paces itself as usual).
 */
export function parseRest(text: string, now: number, timeZone?: string): ChosenRest | null {
  const words = text.trim().replace(/\s+/g, ' ');
  const reasonOf = (rest: string) => rest.replace(/^\s*(?:[—–:;,.-]|because\b|so\b)\s*/i, '').trim();
  const span = /^for\s+(\d+(?:\.\d+)?)\s*([a-z]+)\b/i.exec(words);
  if (span) {
    const word = span[2]!.toLowerCase();
    const unit = UNITS[word] ?? UNITS[word.replace(/s$/, '')];
    return unit ? bounded({ until: now + Number(span[1]) * unit, reason: reasonOf(words.slice(span[0].length)) }, now) : null;
  }
  const clock = /^until\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?=$|[\s—–:;,.-])/i.exec(words);
  if (clock && (clock[2] !== undefined || clock[3] !== undefined)) {
    let hours = Number(clock[1]);
    const meridiem = clock[3]?.toLowerCase();
    if (meridiem === 'pm' && hours < 12) hours += 12;
    if (meridiem === 'am' && hours === 12) hours = 0;
    const minutes = Number(clock[2] ?? 0);
    if (hours > 23 || minutes > 59) return null;
    return bounded({ until: nextClockTime(now, hours, minutes, timeZone), reason: reasonOf(words.slice(clock[0].length)) }, now);
  }
  // "until they speak", "until the task ends": something must happen.
  if (/^until\s+\S/i.test(words)) return { until: null, reason: words.slice(6).trim() };
  return null;
}

/** When the quiet hours (`"22:00-07:00"`, the session's time zone or the server's clock) that hold `now` end; null outside them or without any. */
export function quietUntil(now: number, spec: string | undefined, timeZone?: string): number | null {
  const parts = spec ? /^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$/.exec(spec) : null;
  if (!parts) return null;
  const [from, to] = [Number(parts[1]) * 60 + Number(parts[2]), Number(parts[3]) * 60 + Number(parts[4])];
  const clock = clockAt(now, timeZone);
  const minute = clock.hours * 60 + clock.minutes;
  const inside = from <= to ? minute >= from && minute < to : minute >= from || minute < to;
  return inside ? nextClockTime(now, Math.floor(to / 60), to % 60, timeZone) : null;
}

/** A chosen rest within the app's limits: at least a minute, at most a day. */
function bounded(rest: ChosenRest, now: number): ChosenRest {
  if (rest.until === null) return rest;
  return { ...rest, until: Math.min(now + chosenRestLimitMs, Math.max(now + chosenRestFloorMs, rest.until)) };
}

/** The pause before the `quiet`-th cycle in a row with nothing new to read (1: the first after the one that read the news). */
export function deepeningPauseMs(quiet: number, activityDelayMs: number, ceilingMs: number): number {
  if (quiet <= 1) return activityDelayMs;
  return Math.min(ceilingMs, Math.max(activityDelayMs, firstDeepRestMs * 2 ** (quiet - 2)));
}

export interface RestInput {
  pacing: SessionParams['pacing'];
  /** The activity's pause (pacing.ts). */
  activityDelayMs: number;
  lastCycleEndedAt: number;
  /** Cycles finished since the last news (the one that read it counts). */
  quietCycles: number;
  /** Something new arrived since the last cycle began. */
  news: boolean;
  chosen: ChosenRest | null;
  limits: RestLimits;
  /** How long since anything new arrived: past the limit the mind is dormant. */
  sinceNewsMs: number;
}

/**
 * When the next cycle is due, and how the mind is resting meanwhile. `at: null`: no cycle until
 * something happens (stored); `reason`: what the page says.
 */
export type RestPlan =
  | { kind: 'awake'; at: number }
  | { kind: 'chosen'; at: number | null; rest: ChosenRest }
  | { kind: 'deepening'; at: number; depth: number }
  | { kind: 'stored'; at: null }
  | { kind: 'dormant'; at: null };

/** Nothing new for the limit's days: no cycle, no rest it chose, no dreaming until something arrives. */
export function isDormant(sinceNewsMs: number, limits: Pick<RestLimits, 'dormantAfterMs'>): boolean {
  return sinceNewsMs >= limits.dormantAfterMs;
}

export function planRest(input: RestInput): RestPlan {
  if (input.pacing === 'continuous') return { kind: 'awake', at: input.lastCycleEndedAt };
  if (input.news) return { kind: 'awake', at: input.lastCycleEndedAt + input.activityDelayMs };
  // Nobody spoke for weeks: not even a rest it chose wakes it (a message, a schedule, any news does).
  if (isDormant(input.sinceNewsMs, input.limits)) return { kind: 'dormant', at: null };
  if (input.chosen) return { kind: 'chosen', at: input.chosen.until, rest: input.chosen };
  if (input.quietCycles < input.limits.idleThoughts) {
    // The next cycle is the `quietCycles`-th in a row with nothing new to read.
    const pause = deepeningPauseMs(input.quietCycles, input.activityDelayMs, input.limits.ceilingMs);
    return pause > input.activityDelayMs ? { kind: 'deepening', at: input.lastCycleEndedAt + pause, depth: input.quietCycles } : { kind: 'awake', at: input.lastCycleEndedAt + pause };
  }
  return { kind: 'stored', at: null };
}
