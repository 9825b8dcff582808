// Tool calls in the real SQLite store: committed with their step, decided once (compare-and-set),
// refused for a foreign session or changed arguments, run once, and interrupted — never re-run —
// when found running at start-up.
import { describe, expect, it } from 'vitest';
import { defaultParams, type LayerModelConfig } from '@/lib/config/model-config';
import { insertSession } from '@/lib/store/sessions-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import {
  decideToolCall,
  finishToolCall,
  hashArgs,
  insertAgentStep,
  interruptRunningToolCalls,
  listOpenAgentTurns,
  loadAgentSteps,
  startToolCall,
  closeAgentTurn,
  INTERRUPTED_RESULT,
} from './tool-calls-repository';

useTempAppDirs();

const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'fake', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };
let sessions = 0;

async function newSession(): Promise<string> {
  sessions += 1;
  const id = `s${sessions}`;
  await insertSession({ id, name: id, personaName: 'tester', personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
  return id;
}

async function oneCall(sessionId: string, args: Record<string, unknown> = { command: 'ls' }) {
  const [call] = await insertAgentStep({
    sessionId,
    turn: { turnId: `turn-${sessionId}`, spontaneous: false, cycleNumber: 1, answering: [1], prompt: 'do it' },
    step: 0,
    assistantText: '<ID_loud>Listing.</ID_loud>',
    calls: [{ id: `call-${sessionId}`, providerCallId: 'toolu_1', name: 'bash', args, approval: 'required', status: 'awaiting_approval' }],
  });
  return call!;
}

describe('tool calls store', () => {
  it('a step is committed with its turn and calls; the turn stays open until closed', async () => {
    const sessionId = await newSession();
    const call = await oneCall(sessionId);
    expect(call).toMatchObject({ status: 'awaiting_approval', args: { command: 'ls' }, argsHash: hashArgs({ command: 'ls' }), step: 0, position: 0 });
    expect(await listOpenAgentTurns({ sessionId })).toEqual([expect.objectContaining({ turnId: `turn-${sessionId}`, answering: [1], prompt: 'do it' })]);
    const steps = await loadAgentSteps({ sessionId, turnId: `turn-${sessionId}` });
    expect(steps).toHaveLength(1);
    expect(steps[0]!.calls.map((c) => c.id)).toEqual([call.id]);
    // Closing cancels the card nobody will decide now, and returns it (its page must hear).
    const cancelled = await closeAgentTurn({ sessionId, turnId: `turn-${sessionId}` });
    expect(cancelled.map((c) => [c.id, c.status, c.result])).toEqual([[call.id, 'cancelled', 'Cancelled: the turn ended before this call was decided or run.']]);
    expect(await listOpenAgentTurns({ sessionId })).toEqual([]);
    expect(await closeAgentTurn({ sessionId, turnId: `turn-${sessionId}` })).toEqual([]);
  });

  it('a decision applies once: the second (another tab, a replay) gets the first outcome', async () => {
    const sessionId = await newSession();
    const call = await oneCall(sessionId);
    const results = await Promise.all([
      decideToolCall({ sessionId, id: call.id, argsHash: call.argsHash, decision: { decision: 'approve', by: { person_id: 'owner', via: 'page' } } }),
      decideToolCall({ sessionId, id: call.id, argsHash: call.argsHash, decision: { decision: 'deny', reason: 'no', by: { person_id: 'owner', via: 'page' } } }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    const loser = results.find((result) => !result.ok)!;
    expect(loser).toMatchObject({ ok: false, reason: 'not_awaiting' });
    const winner = results.find((result) => result.ok)!;
    expect(loser.call?.status).toBe(winner.call!.status);
  });

  it('a denial keeps the reason verbatim as the result the model gets', async () => {
    const sessionId = await newSession();
    const call = await oneCall(sessionId);
    const outcome = await decideToolCall({ sessionId, id: call.id, decision: { decision: 'deny', reason: 'use the staging folder instead', by: { person_id: 'owner', via: 'page' } } });
    expect(outcome).toMatchObject({ ok: true, call: { status: 'denied', isError: true, result: 'Denied by the user: use the staging folder instead' } });
  });

  it('a foreign session or changed arguments are refused and change nothing', async () => {
    const sessionId = await newSession();
    const other = await newSession();
    const call = await oneCall(sessionId);
    expect(await decideToolCall({ sessionId: other, id: call.id, decision: { decision: 'approve', by: { person_id: 'owner', via: 'page' } } })).toEqual({ ok: false, reason: 'not_found' });
    expect(await decideToolCall({ sessionId, id: call.id, argsHash: hashArgs({ command: 'rm -rf ~' }), decision: { decision: 'approve', by: { person_id: 'owner', via: 'page' } } })).toMatchObject({
      ok: false,
      reason: 'args_mismatch',
      call: { status: 'awaiting_approval' },
    });
    expect(await decideToolCall({ sessionId, id: 'nope', decision: { decision: 'approve', by: { person_id: 'owner', via: 'page' } } })).toEqual({ ok: false, reason: 'not_found' });
  });

  it('edit then approve stores the edited arguments; the call runs once', async () => {
    const sessionId = await newSession();
    const call = await oneCall(sessionId);
    const outcome = await decideToolCall({ sessionId, id: call.id, argsHash: call.argsHash, decision: { decision: 'approve', by: { person_id: 'owner', via: 'page' }, editedArgs: { command: 'ls -la' } } });
    expect(outcome).toMatchObject({ ok: true, call: { status: 'approved', args: { command: 'ls -la' } } });
    const starts = await Promise.all([startToolCall({ id: call.id }), startToolCall({ id: call.id })]);
    expect(starts.filter(Boolean)).toHaveLength(1);
    expect(await finishToolCall({ id: call.id, status: 'succeeded', result: 'a\nb', isError: false, exitCode: 0 })).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(await finishToolCall({ id: call.id, status: 'failed', result: 'again', isError: true })).toBeNull();
  });

  it('a call found running at start-up becomes interrupted and is never started again', async () => {
    const sessionId = await newSession();
    const call = await oneCall(sessionId);
    await decideToolCall({ sessionId, id: call.id, decision: { decision: 'approve', by: { person_id: 'owner', via: 'page' } } });
    expect(await startToolCall({ id: call.id })).toBe(true);
    expect(await interruptRunningToolCalls()).toBeGreaterThanOrEqual(1);
    expect(await startToolCall({ id: call.id })).toBe(false);
    const [step] = await loadAgentSteps({ sessionId, turnId: `turn-${sessionId}` });
    expect(step!.calls[0]).toMatchObject({ status: 'interrupted', result: INTERRUPTED_RESULT, isError: true });
  });
});
