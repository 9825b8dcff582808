// What was said, ranked as a conversation rather than as loose lines (issue 49). The store's
// lexical score of each turn (BM25 / weighted ts_rank) is the start; then, each measured alone on
// LoCoMo's dev conversations (docs/benchmarks.md):
// - a turn's better neighbour lends it its score, `neighbour` times it: an answer rarely repeats
//   the question's words, the turn before it does;
// - a turn by the one person the query names counts `speaker` more (the speaker is the name a
//   turn begins with, "Alice: …", as shared sessions and imports write it);
// - a turn said within a date the query names ("in June", "two weeks before the wedding"),
//   or up to `dateSlackDays` after it (people tell of things after they happen), counts `date` more.
import { eventSpan, type DateSpan, type QueryDates } from './query-dates';
import type { MessageHit } from './text-search';
import type { TurnNeighbours } from './turn-neighbours';

export interface TurnWeights {
  neighbour: number;
  speaker: number;
  date: number;
  dateSlackDays: number;
}

export interface RankedTurn extends MessageHit {
  /** Why it ranks where it does, beyond its own words ('' when only they count). */
  reasons: string;
}

const DAY_MS = 86_400_000;
const SPEAKER = /^([\p{Lu}][\p{L}'’-]*(?: [\p{Lu}][\p{L}'’-]*)?): /u;

/** The name a turn begins with ("Alice: …"), lower case, or null. */
export function speakerOf(content: string): string | null {
  return SPEAKER.exec(content)?.[1]?.toLowerCase() ?? null;
}

export function turnsNeedRanking(weights: TurnWeights): boolean {
  return weights.neighbour > 0 || weights.speaker > 0 || weights.date > 0;
}

export function rankTurns(input: { hits: readonly MessageHit[]; neighbours: readonly TurnNeighbours[]; words: readonly string[]; dates: QueryDates; weights: TurnWeights }): RankedTurn[] {
  const { weights } = input;
  const own = new Map(input.hits.map((hit) => [hit.id, hit.score]));
  const turns = new Map<number, MessageHit>(input.hits.map((hit) => [hit.id, hit]));
  const before = new Map<number, number>();
  const after = new Map<number, number>();
  for (const entry of input.neighbours) {
    if (entry.before) {
      before.set(entry.of, entry.before.id);
      after.set(entry.before.id, entry.of);
      if (!turns.has(entry.before.id)) turns.set(entry.before.id, entry.before);
    }
    if (entry.after) {
      after.set(entry.of, entry.after.id);
      before.set(entry.after.id, entry.of);
      if (!turns.has(entry.after.id)) turns.set(entry.after.id, entry.after);
    }
  }
  const scoreOf = (id: number | undefined) => (id === undefined ? 0 : (own.get(id) ?? 0));

  // The one speaker the query names, among those the turns found have.
  const speakers = new Set([...turns.values()].map((turn) => speakerOf(turn.content)).filter((name): name is string => name !== null));
  const named = [...speakers].filter((name) => input.words.includes(name.split(' ')[0]!));
  const speaker = named.length === 1 ? named[0]! : null;

  // An event's date: when the best-scored turn that names it was said.
  const spans: DateSpan[] = [...input.dates.spans];
  for (const event of input.dates.events) {
    const word = event.event.split(/\s+/)[0]!;
    const mention = input.hits.filter((hit) => hit.content.toLowerCase().includes(word)).sort((a, b) => b.score - a.score)[0];
    if (mention) spans.push(eventSpan(event, mention.createdAt));
  }
  const slack = weights.dateSlackDays * DAY_MS;
  const within = (at: Date) => spans.find((span) => at.getTime() >= span.from.getTime() - DAY_MS && at.getTime() < span.to.getTime() + slack);

  const ranked = [...turns.values()].map((turn) => {
    // The better neighbour only: a turn between two matches is not worth more than either.
    const lent = Math.max(scoreOf(before.get(turn.id)), scoreOf(after.get(turn.id)));
    let score = scoreOf(turn.id) + weights.neighbour * lent;
    const reasons: string[] = [];
    if (weights.neighbour > 0 && lent > 0) reasons.push(own.has(turn.id) ? 'and its neighbours' : 'next to a match');
    if (weights.speaker > 0 && speaker && speakerOf(turn.content) === speaker) {
      score *= 1 + weights.speaker;
      reasons.push(`said by ${speaker}`);
    }
    const span = weights.date > 0 ? within(turn.createdAt) : undefined;
    if (span) {
      score *= 1 + weights.date;
      reasons.push(`said around ${span.text}`);
    }
    return { ...turn, score, reasons: reasons.join(', ') };
  });
  return ranked.filter((turn) => turn.score > 0).sort((a, b) => b.score - a.score || b.id - a.id);
}
