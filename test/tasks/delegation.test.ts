// Specialists (issue 34, begun): a task whose persona's graph names a specialist delegates part of
// its work; the child runs as a task of the specialist's persona in a session of its own (linked
// to the parent's), within a budget carved from the parent's, and its result comes back as the
// call's result; the parent finishes with it and its usage includes the child's. A specialist the
// graph does not name is refused in words the model can act on.
import { describe, expect, it } from 'vitest';
import { delegationHost } from '@/lib/orchestrator/delegation-host';
import { getDb } from '@/lib/store/db';
import { submitTaskSchema } from '@/lib/store/task-types';
import { findTask, updateTask } from '@/lib/store/tasks-repository';
import { EventBus } from '@/lib/mind/events';
import type { BackendRequest } from '@/lib/backends/model-backend';
import { briefOf, toolResultsOf, useLeadAndReviewer } from '@/test/support/lead-and-reviewer';
import { subconsciousReply, type ScriptStep } from '@/test/support/scripted-backend';

/** The lead delegates the review, then finishes with what came back; the reviewer finishes at once; an outsider is asked for too. */
function script(request: BackendRequest): ScriptStep {
  // The task's own brief only: recalled memories of earlier tasks would match too.
  const prompt = briefOf(request);
  if (prompt === null) return { text: subconsciousReply() };
  const back = toolResultsOf(request);
  if (prompt.includes('Check the notes')) {
    if (prompt.includes('the Q3 notes')) return { text: '', toolCalls: [{ id: 'f3', name: 'finish_task', input: { result: 'Checked the Q3 notes.' } }] };
    return { text: '', toolCalls: [{ id: 'q2', name: 'ask_user', input: { question: 'Which notes?' } }] };
  }
  if (prompt.includes('Ship the notes')) {
    const review = back.find((result) => result.callId === 'd3');
    if (review) return { text: '', toolCalls: [{ id: 'f4', name: 'finish_task', input: { result: `Done: ${review.content}` } }] };
    return { text: '', toolCalls: [{ id: 'd3', name: 'delegate', input: { specialist: 'reviewer', task: 'Check the notes' } }] };
  }
  // Issue 41 §3: the lead may only delegate; the reviewer tries to write a file anyway.
  if (prompt.includes('Save the summary')) {
    const wrote = back.find((result) => result.callId === 'w1');
    if (wrote) return { text: '', toolCalls: [{ id: 'f5', name: 'finish_task', input: { result: `write_file said: ${wrote.content.slice(0, 80)}` } }] };
    return { text: '', toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'summary.md', content: 'pwned' } }] };
  }
  if (prompt.includes('Lock the report')) {
    const saved = back.find((result) => result.callId === 'd5');
    if (saved) return { text: '', toolCalls: [{ id: 'f6', name: 'finish_task', input: { result: saved.content } }] };
    return { text: '', toolCalls: [{ id: 'd5', name: 'delegate', input: { specialist: 'reviewer', task: 'Save the summary' } }] };
  }
  if (prompt.includes('Check the memo')) return { text: '', toolCalls: [{ id: 'q1', name: 'ask_user', input: { question: 'Which memo?' } }] };
  if (prompt.includes('Ship the memo')) return { text: '', toolCalls: [{ id: 'd2', name: 'delegate', input: { specialist: 'reviewer', task: 'Check the memo' } }] };
  if (prompt.includes('Review the draft')) return { text: '', toolCalls: [{ id: 'f2', name: 'finish_task', input: { result: 'Two typos on page 2; otherwise sound.' } }] };
  if (prompt.includes('Ship the report')) {
    if (back.length === 0) {
      return {
        text: '',
        toolCalls: [
          { id: 'd0', name: 'delegate', input: { specialist: 'hacker', task: 'Break in' } },
          { id: 'd1', name: 'delegate', input: { specialist: 'reviewer', task: 'Review the draft', limits: { max_tokens: 5_000 } } },
        ],
      };
    }
    return { text: '', toolCalls: [{ id: 'f1', name: 'finish_task', input: { result: `Shipped. Review: ${back.find((result) => result.callId === 'd1')?.content ?? ''}` } }] };
  }
  return { text: '<ID_loud>Hello.</ID_loud>' };
}

const { app, createSession } = useLeadAndReviewer(script);
/** A delegation host of the app's own, listening on `bus`. */
const hostOn = (bus: EventBus) => delegationHost({ createSession: (input) => app.orchestrator.createSession(input), pauseSession: (id) => app.orchestrator.pauseSession(id), tasks: () => app.orchestrator.tasks, bus });

describe('delegate', () => {
  it('the reviewer works as a child task in a session of its own, within the parent’s budget; its result comes back and the parent finishes', async () => {
    const session = await createSession('lead');
    const parent = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Ship the report', constraints: { max_steps: 10, timeout_s: 600, max_tokens: 20_000 } }));
    const done = await app.events.waitFor('task.completed', { where: (event) => event.task.id === parent.id, timeoutMs: 30_000 });
    expect(done.task.result).toBe('Shipped. Review: reviewer finished (task ' + (await childOf(parent.id)).id + ', 1 steps):\nTwo typos on page 2; otherwise sound.');

    const child = await childOf(parent.id);
    expect(child).toMatchObject({ status: 'completed', parentTaskId: parent.id, constraints: { max_tokens: 5_000 } });
    const childSession = await (await getDb()).session.findUniqueOrThrow({ where: { id: child.sessionId } });
    expect([childSession.personaName, childSession.parentSessionId]).toEqual(['reviewer', session.id]);
    // The parent's usage holds the child's.
    const ended = (await findTask(parent.id))!;
    expect(ended.usage.inputTokens).toBeGreaterThanOrEqual(child.usage.inputTokens);
    expect(ended.usage.inputTokens + ended.usage.outputTokens).toBeLessThanOrEqual(20_000);
    // The outsider was refused in words the model read.
    const refusal = app.backend.calls.flatMap(toolResultsOf).find((result) => result.callId === 'd0');
    expect(refusal).toMatchObject({ isError: true, content: expect.stringContaining('Not delegated: hacker is not one of this agent') });
  }, 40_000);
});

describe('a parent’s tool limit (issue 41 §3)', () => {
  it('is a ceiling for its specialist: a lead limited to `delegate` cannot have the reviewer write a file', async () => {
    const session = await createSession('lead');
    const parent = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Lock the report', constraints: { max_steps: 10, timeout_s: 600, tools: ['delegate'] } }));
    const done = await app.events.waitFor('task.completed', { where: (event) => event.task.id === parent.id, timeoutMs: 30_000 });
    const child = await childOf(parent.id);
    expect(child.constraints.tools).toEqual(['delegate']);
    expect(done.task.result).toContain('write_file said: CAPABILITY_NOT_AVAILABLE');
    const calls = await (await getDb()).toolCall.findMany({ where: { sessionId: child.sessionId, name: 'write_file' } });
    expect(calls.map((call) => call.status)).toEqual(['failed']);
  }, 40_000);
});

describe('a specialist’s question', () => {
  it('blocks its parent with the question; the answer given to the parent reaches the specialist, and both finish', async () => {
    const session = await createSession('lead');
    const parent = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Ship the notes' }));
    const asked = await app.events.waitFor('task.blocked', { where: (event) => event.task.id === parent.id && event.task.blocked_on?.kind === 'question', timeoutMs: 30_000 });
    expect(asked.task.blocked_on).toMatchObject({ kind: 'question', question: 'reviewer asks: Which notes?' });
    await app.orchestrator.tasks.resume(parent.id, 'the Q3 notes');
    const done = await app.events.waitFor('task.completed', { where: (event) => event.task.id === parent.id, timeoutMs: 30_000 });
    expect(done.task.result).toMatch(/^Done: reviewer finished \(task [0-9a-f-]{36}, 2 steps\):\nChecked the Q3 notes\.$/);
  }, 40_000);
});

describe('cancel', () => {
  it('cancelling the parent cancels the child it waits on (here blocked on a question)', async () => {
    const session = await createSession('lead');
    const parent = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Ship the memo' }));
    const blocked = await app.events.waitFor('task.blocked', { where: (event) => event.task.parent_task_id === parent.id, timeoutMs: 30_000 });
    expect(blocked.task.blocked_on).toEqual({ kind: 'question', question: 'Which memo?' });
    // Asked again for the same work (as a step continued after a restart would): the same child.
    const host = hostOn(app.orchestrator.bus);
    const again = await host.startChild({ parent: (await findTask(parent.id))!, specialist: 'reviewer', goal: 'Check the memo', context: null, constraints: { max_steps: 5, timeout_s: 60 } });
    expect(again.id).toBe(blocked.task.id);
    await app.orchestrator.tasks.cancel(parent.id);
    await app.events.waitFor('task.cancelled', { where: (event) => event.task.id === parent.id, timeoutMs: 30_000 });
    await app.events.waitFor('task.cancelled', { where: (event) => event.task.id === blocked.task.id, timeoutMs: 30_000 });
    expect((await findTask(blocked.task.id))!.status).toBe('cancelled');
  }, 40_000);
});

describe('a child whose events never reach this process (it runs in another one of a cluster)', () => {
  it('its end is read from its row: the wait resolves without an event', async () => {
    const session = await createSession('reviewer');
    const child = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Check the memo' }));
    const blocked = await app.events.waitFor('task.blocked', { where: (event) => event.task.id === child.id, timeoutMs: 30_000 });
    // A host on a bus of its own hears nothing of the child; the row changes as another process would change it.
    const deaf = hostOn(new EventBus());
    const waiting = deaf.waitForEnd(blocked.task.id, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 300)); // its first look saw the child blocked
    await updateTask(blocked.task.id, { status: 'completed', result: 'Checked elsewhere.', blockedOn: null, finishedAt: new Date() });
    expect(await waiting).toMatchObject({ id: blocked.task.id, status: 'completed', result: 'Checked elsewhere.' });
  }, 40_000);
});

async function childOf(parentTaskId: string) {
  const row = await (await getDb()).task.findFirstOrThrow({ where: { parentTaskId } });
  return (await findTask(row.id))!;
}
