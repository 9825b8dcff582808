// Dates in a recall query, resolved against the conversation's time, and the ranking of turns
// with their neighbours, speaker and dates (issue 49) — pure functions, no store.
import { describe, expect, it } from 'vitest';
import { eventSpan, queryDates } from './query-dates';
import { rankTurns, speakerOf, type TurnWeights } from './turn-rerank';
import type { MessageHit } from './text-search';

const reference = new Date('2023-10-20T12:00:00Z');
const day = (text: string) => text.slice(0, 10);
const spansOf = (query: string, at = reference) => queryDates(query, at).spans.map((span) => `${span.text}: ${day(span.from.toISOString())}..${day(span.to.toISOString())}`);

describe('dates in a query', () => {
  it('reads days, months and years as spans of whole days', () => {
    expect(spansOf('What painting did Melanie show to Caroline on October 13, 2023?')).toEqual(['october 13, 2023: 2023-10-13..2023-10-14']);
    expect(spansOf('What did Gina find for her store on 1 February, 2023?')).toEqual(['on 1 february, 2023: 2023-02-01..2023-02-02']);
    expect(spansOf('what was said on 2023-05-08')).toEqual(['2023-05-08: 2023-05-08..2023-05-09']);
    expect(spansOf('What setback did Melanie face in October 2023?')).toEqual(['october 2023: 2023-10-01..2023-11-01']);
    expect(spansOf('How many times has Melanie gone to the beach in 2023?')).toEqual(['2023: 2023-01-01..2024-01-01']);
  });

  it('gives a month named alone the year of its latest passing, and "last May" the one before this month', () => {
    expect(spansOf('When did Melanie go camping in June?')).toEqual(['june: 2023-06-01..2023-07-01']);
    expect(spansOf('When did Melanie go camping in November?')).toEqual(['november: 2022-11-01..2022-12-01']);
    expect(spansOf('What did she do last May?')).toEqual(['last may: 2023-05-01..2023-06-01']);
    expect(spansOf('and last October?')).toEqual(['last october: 2022-10-01..2022-11-01']);
    expect(spansOf('this October')).toEqual(['this october: 2023-10-01..2023-11-01']);
  });

  it('resolves relative dates against the reference, not the clock', () => {
    expect(spansOf('what did we say yesterday')).toEqual(['yesterday: 2023-10-19..2023-10-20']);
    expect(spansOf('Where did John go on a road trip last year?')).toEqual(['last year: 2022-01-01..2023-01-01']);
    expect(spansOf('Where did Caroline move from 4 years ago?')).toEqual(['4 years ago: 2019-01-01..2020-01-01']);
    expect(spansOf('what did she do last week')).toEqual(['last week: 2023-10-10..2023-10-17']);
    expect(spansOf('what did she do last week', new Date('2026-03-04T09:00:00Z'))).toEqual(['last week: 2026-02-22..2026-03-01']);
  });

  it('reads seasons and a fortnight on one side of a date', () => {
    expect(spansOf('What did Mel do in the summer of 2022?')).toEqual(['in the summer of 2022: 2022-06-01..2022-09-01']);
    expect(spansOf('what happened last summer')).toEqual(['last summer: 2023-06-01..2023-09-01']);
    expect(spansOf('in the fall of 2021')).toEqual(['in the fall of 2021: 2021-09-01..2021-12-01']);
    expect(spansOf('What did Maria do last weekend before April 10, 2023?')).toEqual(['before april 10, 2023: 2023-03-27..2023-04-10']);
  });

  it('keeps an event span until the event is found, then centres a week on its offset', () => {
    const { spans, events } = queryDates('What happened two weeks before the wedding?', reference);
    expect(spans).toEqual([]);
    expect(events).toEqual([{ event: 'wedding', days: 14, direction: 'before', text: 'two weeks before the wedding' }]);
    const span = eventSpan(events[0]!, new Date('2023-06-24T15:00:00Z'));
    expect([day(span.from.toISOString()), day(span.to.toISOString())]).toEqual(['2023-06-03', '2023-06-18']);
    expect(queryDates('a couple of days after her birthday?', reference).events).toMatchObject([{ event: 'birthday', days: 2, direction: 'after' }]);
  });

  it('reads no date where there is none: names, verbs, a season as a topic', () => {
    for (const query of ['What did Caroline research?', 'What did April paint?', 'Did Jon march on Sunday?', 'What may Caroline like?', "What is Jon's favourite season? summer", '']) {
      expect(queryDates(query, reference), query).toEqual({ spans: [], events: [] });
    }
  });
});

const weights: TurnWeights = { neighbour: 0.5, speaker: 0.3, date: 0.6, dateSlackDays: 10 };
const turn = (id: number, content: string, score: number, at = '2023-05-01T10:00:00Z'): MessageHit => ({ id, sessionId: 's', content, score, createdAt: new Date(at) });
const none = { spans: [], events: [] };

describe('turns ranked as a conversation', () => {
  it('lends a turn its neighbours’ scores, so an answer that repeats no word is found', () => {
    const question = turn(1, 'Mel: How was the concert?', 4);
    const answer = turn(2, 'Caroline: We loved it, the kids danced all night', 0);
    const other = turn(9, 'Caroline: the concert hall is closed', 3);
    const ranked = rankTurns({ hits: [question, other], neighbours: [{ of: 1, before: null, after: answer }, { of: 9, before: null, after: null }], words: ['concert'], dates: none, weights });
    expect(ranked.map((hit) => [hit.id, hit.score, hit.reasons])).toEqual([
      [1, 4, ''],
      [9, 3, ''],
      [2, 2, 'next to a match'],
    ]);
    // Off, the store's own order and nothing brought in.
    expect(rankTurns({ hits: [question, other], neighbours: [], words: ['concert'], dates: none, weights: { ...weights, neighbour: 0 } }).map((hit) => hit.id)).toEqual([1, 9]);
  });

  it('favours the one speaker the query names, and no one when it names both', () => {
    const hits = [turn(1, 'Mel: I love painting sunsets', 2), turn(2, 'Caroline: I love painting too', 2)];
    expect(rankTurns({ hits, neighbours: [], words: ['caroline', 'painting'], dates: none, weights }).map((hit) => [hit.id, hit.reasons])).toEqual([
      [2, 'said by caroline'],
      [1, ''],
    ]);
    expect(rankTurns({ hits, neighbours: [], words: ['caroline', 'mel', 'painting'], dates: none, weights }).map((hit) => hit.reasons)).toEqual(['', '']);
    expect(speakerOf('Ana María: hola')).toBe('ana maría');
    expect(speakerOf('note: lower case is not a name')).toBeNull();
  });

  it('favours what was said within a named date or the days after it, and around an event the turns mention', () => {
    const hits = [turn(1, 'we went camping', 2, '2023-05-10T10:00:00Z'), turn(2, 'we went camping again', 2, '2023-07-05T10:00:00Z'), turn(3, 'the wedding was lovely', 1, '2023-08-20T10:00:00Z')];
    const june = rankTurns({ hits, neighbours: [], words: ['camping'], dates: queryDates('camping in June?', reference), weights });
    expect(june.map((hit) => [hit.id, hit.reasons])).toEqual([
      [2, 'said around june'],
      [1, ''],
      [3, ''],
    ]);
    const beforeWedding = rankTurns({ hits, neighbours: [], words: ['camping', 'wedding'], dates: queryDates('camping six weeks before the wedding?', reference), weights });
    expect(beforeWedding[0]).toMatchObject({ id: 2, reasons: 'said around six weeks before the wedding' });
  });
});
