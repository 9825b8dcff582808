// Dates in a recall query (issue 49): "in June", "October 13, 2023", "last May", "four years ago",
// "the summer of 2022", "two weeks before the wedding" — each resolved to a span of days against a
// reference (the conversation's own time: now, for a live one) so recall can favour what was said
// then. chrono-node reads the common forms; the rest are read here: a month named alone or with
// last/this, a bare year, a season, and a span before or after a date or an event the conversation
// mentions (the event's own date comes from the caller, who has the turns).
import * as chrono from 'chrono-node';

/** Days from `from` (inclusive) to `to` (exclusive), UTC midnights. */
export interface DateSpan {
  from: Date;
  to: Date;
  /** The words it was read from. */
  text: string;
}

/** "two weeks before the wedding": the span waits for the event's date. */
export interface EventSpan {
  /** The event's words ("wedding"). */
  event: string;
  days: number;
  direction: 'before' | 'after';
  text: string;
}

export interface QueryDates {
  spans: DateSpan[];
  events: EventSpan[];
}

const DAY_MS = 86_400_000;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, couple: 2, few: 3 };
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };
const SEASONS: Record<string, [number, number]> = { spring: [2, 5], summer: [5, 8], autumn: [8, 11], fall: [8, 11], winter: [11, 14] };
/** The words a month named alone must follow to be read as one ("in June", not "April said"). */
const MONTH_LEAD = /\b(in|on|during|since|by|until|till|from|of|early|late|mid|before|after|through)\s*$/;
/** How far "before X" or "after X" reaches when no length is given. */
const NEAR_DAYS = 14;

const utcDay = (year: number, month: number, day: number) => new Date(Date.UTC(year, month, day));
const monthSpan = (year: number, month: number, text: string): DateSpan => ({ from: utcDay(year, month, 1), to: utcDay(year, month + 1, 1), text });
const yearSpan = (year: number, text: string): DateSpan => ({ from: utcDay(year, 0, 1), to: utcDay(year + 1, 0, 1), text });

/** The latest `month` that has begun by `reference` (strictly before its month when `before`). */
function latestMonth(month: number, reference: Date, before: boolean): number {
  const year = reference.getUTCFullYear();
  const current = reference.getUTCMonth();
  return month < current || (month === current && !before) ? year : year - 1;
}

/** Cuts what a reader understood out of the query, so the next reader does not read it twice. */
function cut(text: string, pattern: RegExp, read: (match: [string, ...string[]]) => void): string {
  return text.replace(pattern, (whole: string, ...rest: unknown[]) => {
    // After the groups come the offset and the whole text (no named groups are used here).
    read([whole, ...(rest.slice(0, -2) as string[])]);
    return ' '.repeat(whole.length);
  });
}

const amount = (word: string) => NUMBERS[word] ?? Number(word);

export function queryDates(query: string, reference: Date): QueryDates {
  const spans: DateSpan[] = [];
  const events: EventSpan[] = [];
  let rest = query.toLowerCase();
  const number = `(\\d+|${Object.keys(NUMBERS).join('|')})`;
  // "two weeks before the wedding", "a few days after her birthday": the event's date comes later.
  rest = cut(rest, new RegExp(`\\b${number}\\s+(?:of\\s+)?(day|week|month|year)s?\\s+(before|after)\\s+(?:the|my|his|her|our|their|your)\\s+([\\p{L}][\\p{L}\\s'-]*?)(?=[?.!,;]|$)`, 'gu'), (match) =>
    events.push({ event: match[4]!.trim(), days: amount(match[1]!) * UNIT_DAYS[match[2]!]!, direction: match[3] as 'before' | 'after', text: match[0].trim() }),
  );
  // "the summer of 2022", "last summer", "in winter" — a season named alone ("summer?") is a topic, not a date.
  rest = cut(rest, /\b(?:(last|this)\s+|(?:in|during|over|since|by|the)\s+(?:the\s+)?)(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?(\d{4}))?\b/g, (match) => {
    const [start, end] = SEASONS[match[2]!]!;
    const year = match[3] ? Number(match[3]) : latestMonth(start, reference, match[1] === 'last');
    spans.push({ from: utcDay(year, start, 1), to: utcDay(year, end, 1), text: match[0].trim() });
  });
  // "last May", "this June" (chrono reads neither).
  rest = cut(rest, new RegExp(`\\b(last|this)\\s+(${MONTHS.join('|')})\\b(?!\\s+\\d)`, 'g'), (match) => {
    const month = MONTHS.indexOf(match[2]!);
    spans.push(monthSpan(latestMonth(month, reference, match[1] === 'last'), month, match[0]));
  });
  // The components, not chrono's Date: the same days in any time zone the server runs in.
  for (const result of chrono.parse(rest, { instant: reference, timezone: 0 })) {
    const certain = (unit: 'year' | 'month' | 'day') => (result.start.isCertain(unit) ? result.start.get(unit)! : undefined);
    const known = { year: certain('year'), month: certain('month'), day: certain('day') };
    const [year, month, day] = (['year', 'month', 'day'] as const).map((unit) => result.start.get(unit)!) as [number, number, number];
    const text = result.text.trim();
    let span: DateSpan | null = null;
    if (known.day !== undefined || (known.month === undefined && known.year === undefined && /\b(yesterday|today|ago)\b/.test(text))) {
      // "last week", "a week ago": the week around that day.
      span = /\bweek/.test(text) ? { from: utcDay(year, month - 1, day - 3), to: utcDay(year, month - 1, day + 4), text } : { from: utcDay(year, month - 1, day), to: utcDay(year, month - 1, day + 1), text };
    } else if (known.month !== undefined && (known.year !== undefined || MONTH_LEAD.test(rest.slice(0, result.index)))) {
      // A month without a year only after a word that makes it a time: "April painted", "march on" are not.
      span = monthSpan(known.year ?? latestMonth(known.month - 1, reference, false), known.month - 1, text);
    } else if (known.year !== undefined) {
      span = yearSpan(known.year, text);
    }
    if (!span) continue;
    // "before April 10", "after the 3rd of May": the fortnight on that side.
    const lead = rest.slice(0, result.index);
    if (/\bbefore\s*$/.test(lead)) span = { from: new Date(span.from.getTime() - NEAR_DAYS * DAY_MS), to: span.from, text: `before ${text}` };
    else if (/\bafter\s*$/.test(lead)) span = { from: span.to, to: new Date(span.to.getTime() + NEAR_DAYS * DAY_MS), text: `after ${text}` };
    spans.push(span);
    rest = rest.slice(0, result.index) + ' '.repeat(result.text.length) + rest.slice(result.index + result.text.length);
  }
  // A year alone: "in 2023", "of 2019".
  cut(rest, /\b(19\d\d|20\d\d)\b/g, (match) => spans.push(yearSpan(Number(match[1]), match[0])));
  return { spans, events };
}

/** An event span made concrete once the event's date is known. */
export function eventSpan(event: EventSpan, eventDate: Date): DateSpan {
  const day = utcDay(eventDate.getUTCFullYear(), eventDate.getUTCMonth(), eventDate.getUTCDate()).getTime();
  const at = event.direction === 'before' ? day - event.days * DAY_MS : day + event.days * DAY_MS;
  // A week either side of the point: "two weeks before" is rarely exactly fourteen days.
  return { from: new Date(at - 7 * DAY_MS), to: new Date(at + 8 * DAY_MS), text: event.text };
}
