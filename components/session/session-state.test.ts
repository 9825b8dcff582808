// The session page's state: REST pages and live events merge without duplicates or gaps.
import { describe, expect, it } from 'vitest';
import type { OrchestratorEvent } from '@/lib/mind/events';
import type { MessageJson } from '@/lib/store/messages-repository';
import { emptyUsageByLayer } from '@/lib/store/mind-repository';
import { initialSessionState, internalTurns, isQueued, sessionReducer, subconsciousCycles, type SessionAction, type SessionState } from './session-state';

const boot = 'boot-1';
const sessionId = '11111111-1111-4111-8111-111111111111';
let nextId = 1;
const message = (patch: Partial<MessageJson>): MessageJson => ({
  id: nextId++,
  layer: 'external',
  tag: 'ED_user',
  content: 'hi',
  cycle_number: 1,
  turn_id: null,
  spontaneous: false,
  interrupted: false,
  created_at: '2026-11-22T12:00:00.000Z',
  ...patch,
});
const event = (seq: number, body: Record<string, unknown>, bootId = boot) => ({ type: 'event', event: { sessionId, seq, at: '2026-11-22T12:00:00.000Z', bootId, ...body } as unknown as OrchestratorEvent }) as SessionAction;
const run = (actions: SessionAction[], start: SessionState = initialSessionState()) => actions.reduce(sessionReducer, start);
const usage = emptyUsageByLayer();
const emptyPage = { messages: [], mood_and_criteria: [], next_before: null };

describe('session page state', () => {
  it('merges a REST page and the events that raced it without duplicates, in id order', () => {
    const first = message({ content: 'one' });
    const second = message({ content: 'two' });
    const state = run([
      { type: 'joined', bootId: boot, lastSeq: 10 },
      event(11, { type: 'message-persisted', message: second, queued: false }),
      { type: 'loaded', session: {} as never, mind: null, usage, pages: { external: { ...emptyPage, messages: [first, second] }, internal: emptyPage, subconscious: emptyPage } },
      event(11, { type: 'message-persisted', message: second, queued: false }),
    ]);
    expect(state.history.external.messages.map((row) => row.content)).toEqual(['one', 'two']);
    expect(state.needsResync).toBe(false);
  });

  it('asks for a re-read after a gap in seq or a server restart', () => {
    const joined = run([{ type: 'joined', bootId: boot, lastSeq: 5 }]);
    expect(run([event(7, { type: 'cycle-start', cycle: 2 })], joined).needsResync).toBe(true);
    expect(run([event(6, { type: 'cycle-start', cycle: 2 })], joined).needsResync).toBe(false);
    expect(run([event(6, { type: 'cycle-start', cycle: 2 }, 'boot-2')], joined).needsResync).toBe(true);
    // After a restart the new boot's seq is taken as is.
    expect(run([{ type: 'joined', bootId: 'boot-2', lastSeq: 1 }], run([event(6, { type: 'cycle-start', cycle: 2 })], joined)).lastSeq).toBe(1);
  });

  it('streams a turn: loud and quiet apart; turn-end swaps the preview for the stored rows; answered messages are no longer queued', () => {
    const user = message({ content: 'question' });
    const waiting = message({ content: 'follow-up' });
    const stored = [
      message({ layer: 'internal', tag: 'ID_loud', content: 'Answer.', turn_id: 't1' }),
      message({ layer: 'internal', tag: 'ID_quiet', content: 'Hmm.', turn_id: 't1' }),
      message({ layer: 'external', tag: 'ED_agent', content: 'Answer.', turn_id: 't1' }),
    ];
    let state = run([
      { type: 'joined', bootId: boot, lastSeq: 0 },
      event(1, { type: 'message-persisted', message: user, queued: false }),
      event(2, { type: 'turn-start', turnId: 't1', spontaneous: false, answering: [user.id], cycle: 1 }),
      event(3, { type: 'reply-delta', turnId: 't1', text: 'Ans' }),
      event(4, { type: 'thought-delta', turnId: 't1', text: 'Hm' }),
      event(5, { type: 'reply-delta', turnId: 't1', text: 'wer.' }),
      event(6, { type: 'message-persisted', message: waiting, queued: true }),
    ]);
    expect(state.streaming).toMatchObject({ loud: 'Answer.', quiet: 'Hm' });
    expect(isQueued(user, state)).toBe(false);
    expect(isQueued(waiting, state)).toBe(true);
    state = run([event(7, { type: 'turn-end', turnId: 't1', outcome: 'complete', spontaneous: false, messages: stored })], state);
    expect(state.streaming).toBeNull();
    expect(state.history.external.messages.map((row) => row.tag)).toEqual(['ED_user', 'ED_user', 'ED_agent']);
    expect(internalTurns(state.history.internal.messages)).toEqual([{ turnId: 't1', spontaneous: false, loud: stored[0], quiet: stored[1] }]);
  });

  it('groups the Subconscious rows by cycle with their mood', () => {
    const rows = [
      message({ layer: 'subconscious', tag: 'S_loud', content: 'note', cycle_number: 3 }),
      message({ layer: 'subconscious', tag: 'S_quiet', content: 'thought', cycle_number: 3 }),
      message({ layer: 'subconscious', tag: 'trigger', content: 'true', cycle_number: 3 }),
    ];
    const mood = { id: 1, mood: 'calm', criteria: 'brief', cycle_number: 3, created_at: '2026-11-22T12:00:00.000Z' };
    const state = run([
      { type: 'joined', bootId: boot, lastSeq: 0 },
      event(1, { type: 'subconscious-output', cycle: 3, messages: rows, moodAndCriteria: mood }),
    ]);
    expect(subconsciousCycles(state.history.subconscious.messages, state.moods)).toEqual([
      { cycle: 3, at: rows[0]!.created_at, sLoud: 'note', sQuiet: 'thought', trigger: true, mood },
    ]);
  });
});
