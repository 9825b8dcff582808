// What each binding is pushed, and quiet hours in the binding's own time zone.
import { describe, expect, it } from 'vitest';
import { longestQuiet, quietMinutesLeft } from '@/lib/config/quiet-hours';
import { pushes } from './channel-outbound';

describe('push modes', () => {
  it('an answer to the chat, a card and a question always go; the rest by mode', () => {
    const kinds = ['answer', 'card', 'question', 'speech', 'spontaneous', 'task'] as const;
    const table = Object.fromEntries((['all', 'spontaneous', 'cards'] as const).map((push) => [push, kinds.filter((kind) => pushes({ push }, kind))]));
    expect(table).toEqual({
      all: ['answer', 'card', 'question', 'speech', 'spontaneous', 'task'],
      spontaneous: ['answer', 'card', 'question', 'spontaneous', 'task'],
      cards: ['answer', 'card', 'question'],
    });
  });
});

describe('quiet hours', () => {
  const madrid = { from: '22:00', to: '07:00', time_zone: 'Europe/Madrid' };
  it('across midnight, in the binding time zone: minutes until they end, 0 outside', () => {
    // 2026-11-25 is CET (UTC+1): 22:30 UTC is 23:30 in Madrid, 7.5 hours before 07:00.
    expect(quietMinutesLeft(madrid, new Date('2026-11-25T22:30:00Z'))).toBe(450);
    expect(quietMinutesLeft(madrid, new Date('2026-11-26T05:59:00Z'))).toBe(1); // 06:59 there
    expect(quietMinutesLeft(madrid, new Date('2026-11-26T06:00:00Z'))).toBe(0); // 07:00 there
    expect(quietMinutesLeft(madrid, new Date('2026-11-25T12:00:00Z'))).toBe(0);
    expect(quietMinutesLeft(null, new Date())).toBe(0);
  });
  it('within one day', () => {
    const lunch = { from: '13:00', to: '14:30', time_zone: 'UTC' };
    expect(quietMinutesLeft(lunch, new Date('2026-11-25T13:00:00Z'))).toBe(90);
    expect(quietMinutesLeft(lunch, new Date('2026-11-25T14:30:00Z'))).toBe(0);
  });
  it('a chat and its person: the longer wait of the two that hold now', () => {
    const night = { from: '22:00', to: '07:00', time_zone: 'UTC' };
    const late = { from: '23:00', to: '09:00', time_zone: 'UTC' };
    expect(longestQuiet([night, late], new Date('2026-11-25T23:30:00Z'))).toBe(570);
    expect(longestQuiet([night, null, undefined], new Date('2026-11-25T22:30:00Z'))).toBe(510);
    expect(longestQuiet([null, undefined], new Date())).toBe(0);
  });
});
