// Seed 002's task flows through the real orchestrator, mind, toolbox, sandbox and store, with the
// fake OpenAI-compatible server playing the model (test/fakes/task-script.ts): nobody types
// "continue"; cards, questions, limits and cancel end or block the task as a user would expect.
// The same flows on both execution engines: in memory, and DBOS on a PostgreSQL the test starts
// (every step journaled, every wait a DBOS message) — the agent code does not change.
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { flushLlmCalls } from '@/lib/store/llm-call-writer';
import { readLogRecords } from '@/lib/store/session-logs';
import { listMemories } from '@/lib/memory/memory-store';
import { findTask } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n', 'tester-dbos': '# Tester\n' } });
/** One persona per engine: memories are the persona's (and deduplicated within it). */
let persona = 'tester';
let fake: FakeOpenAIServer;
let orchestrator: Orchestrator;
let events: EventRecorder;

const engines = [
  { name: 'in-memory', persona: 'tester', make: async () => ({ engine: undefined, launch: async () => undefined, close: async () => undefined }) },
  {
    name: 'DBOS',
    persona: 'tester-dbos',
    make: async () => {
      const database: TestPostgres = await startPostgres();
      const engine = new DbosEngine({ systemDatabaseUrl: database.urlFor('task_flows'), appName: 'task-flows' });
      return { engine, launch: () => engine.launch(), close: () => database.stop() };
    },
  },
];

async function newSession() {
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  return orchestrator.createSession({ persona, models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
}

function submit(sessionId: string, input: unknown) {
  return orchestrator.tasks.submit(sessionId, submitTaskSchema.parse(input));
}

function waitTask(taskId: string, status: string, timeoutMs = 20_000) {
  const type = `task.${status}` as 'task.completed';
  return events.waitFor(type, { where: (event) => event.task.id === taskId, timeoutMs });
}

describe.each(engines)('tasks on the $name engine', ({ make, persona: enginePersona }) => {
  let closeEngine: () => Promise<void>;
  beforeAll(async () => {
    persona = enginePersona;
    fs.chmodSync(dirs.root, 0o755);
    fake = await startFakeOpenAIServer({ script: taskScript });
    const made = await make();
    closeEngine = made.close;
    orchestrator = new Orchestrator({ taskWorkingDelayMs: 0, ...(made.engine && { engine: made.engine }) });
    await made.launch(); // after the orchestrator defined its workflows
    events = new EventRecorder(orchestrator.bus);
    await orchestrator.start();
  }, 60_000);
  afterAll(async () => {
    events.close();
    await orchestrator.stop();
    await fake.close();
    await closeEngine();
  });

  it('plan → write → a command that needs approval → approved → reflect → finish, with no "continue"', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Write notes and show them [[approve]]' });
    expect(task).toMatchObject({ status: expect.stringMatching(/pending|running/), stepsUsed: 0 });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.name === 'bash' && event.call.status === 'awaiting_approval', timeoutMs: 20_000 });
    expect(card.call.task_id).toBe(task.id);
    const blocked = await waitTask(task.id, 'blocked');
    expect(blocked.task.blocked_on).toEqual({ kind: 'approval', call_ids: [card.call.id] });
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', args_hash: card.call.args_hash, session_id: session.id }, await ownerActor());
    const done = await waitTask(task.id, 'completed');
    expect(done.task).toMatchObject({ status: 'completed', result: 'notes.txt holds: task notes', steps: 3, error: null, blocked_on: null });
    expect(done.task.plan).toEqual([
      { title: 'Write notes', status: 'done' },
      { title: 'Show them', status: 'done' },
    ]);
    expect(fs.readFileSync(path.join(dirs.dataDir, 'workspaces', session.id, 'notes.txt'), 'utf8')).toBe('task notes\n');

    // Every event, tool call and model call the task caused carries its trace id.
    const kinds = events.of('task.created', session.id).concat(...(['task.started', 'task.step', 'task.blocked', 'task.completed'] as const).map((type) => events.of(type as 'task.created', session.id)));
    expect(new Set(kinds.map((event) => event.task.trace_id))).toEqual(new Set([task.traceId]));
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.map((call) => [call.name, call.status, call.traceId])).toEqual([
      ['update_plan', 'succeeded', task.traceId],
      ['write_file', 'succeeded', task.traceId],
      ['bash', 'succeeded', task.traceId],
      ['update_plan', 'succeeded', task.traceId],
      ['finish_task', 'succeeded', task.traceId],
    ]);
    const db = await getDb();
    await flushLlmCalls(); // PostgreSQL writes the rows behind the turn (llm-call-writer.ts)
    const llm = await db.llmCall.findMany({ where: { sessionId: session.id, layer: 'internal' } });
    expect(llm.length).toBeGreaterThanOrEqual(6);
    expect(new Set(llm.map((row) => row.traceId))).toEqual(new Set([task.traceId]));
    expect(new Set(events.of('turn-start', session.id).map((event) => event.traceId))).toEqual(new Set([task.traceId]));
    const lines = readLogRecords({ sessionId: session.id, file: 'internal' });
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines.map((line) => line.trace_id))).toEqual(new Set([task.traceId]));
    const stored = await findTask(task.id);
    expect(stored!.usage.inputTokens).toBeGreaterThan(0);
    // The steps' reports are in the chat.
    // The persona remembers the task.
    const remembered = await listMemories({ personaName: persona, kind: 'task_summary' });
    expect(remembered.map((memory) => [memory.content, memory.taskId])).toContainEqual(['Task "Write notes and show them [[approve]]" completed: notes.txt holds: task notes', task.id]);
    const loud = await db.message.findMany({ where: { sessionId: session.id, tag: 'ID_loud' }, orderBy: { id: 'asc' } });
    expect(loud.map((message) => message.content).join('\n')).toContain('Wrote notes.txt.');
  }, 40_000);

  it('a denial with a reason reaches the model and the plan changes', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Write notes and show them [[approve]]' });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.name === 'bash' && event.call.status === 'awaiting_approval', timeoutMs: 20_000 });
    await orchestrator.decideToolCall({ id: card.call.id, decision: 'deny', reason: 'no commands today' }, await ownerActor());
    const done = await waitTask(task.id, 'completed');
    expect(done.task.result).toBe('notes.txt written; not shown (command denied)');
    expect(done.task.plan).toEqual([
      { title: 'Write notes', status: 'done' },
      { title: 'Report without running commands', status: 'in_progress' },
    ]);
  }, 40_000);

  it('ask_user blocks the task; the answer resumes it and it completes with it', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Pick a colour [[ask]]' });
    const blocked = await waitTask(task.id, 'blocked');
    expect(blocked.task.blocked_on).toEqual({ kind: 'question', question: 'Which colour?' });
    await expect(orchestrator.tasks.cancel('no-such-task')).rejects.toThrow(/does not exist/);
    const resumed = await orchestrator.tasks.resume(task.id, 'teal');
    expect(resumed.status).toMatch(/running|completed/);
    const done = await waitTask(task.id, 'completed');
    expect(done.task.result).toBe('Colour chosen: teal');
    await expect(orchestrator.tasks.resume(task.id, 'again')).rejects.toThrow(/completed, not waiting/);
  }, 40_000);

  it('what the user types while a task runs goes to its next step; the Subconscious sees the steps', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Keep looking [[forever]]', constraints: { max_steps: 3 } });
    await waitTask(task.id, 'step');
    const before = fake.requests.length;
    await orchestrator.sendUserMessage(session.id, { text: 'look in the docs folder too' });
    await waitTask(task.id, 'failed');
    const steered = fake.requests.slice(before).filter((request) => request.lastUserText.includes('<task>') && request.lastUserText.includes('look in the docs folder too'));
    expect(steered.length).toBeGreaterThan(0);
    expect(steered[0]!.lastUserText).toMatch(/<ED_user>look in the docs folder too<\/ED_user>/);
    // No separate conversation turn answered it: the task's step did.
    const turns = events.of('turn-start', session.id);
    expect(turns.length).toBe(3);
    // A cycle that starts after the steps reads them (and the end) among the tool activity. (The
    // cycle in flight when the task ended may have been asked before: the next one is awaited.)
    const readsSteps = () =>
      fake.requests.some((request) => request.system.includes('You are the Subconscious') && /<tool_activity>[\s\S]*task "Keep looking \[\[forever\]\]": step \d of 3 done/.test(request.lastUserText));
    await expect.poll(readsSteps, { timeout: 20_000 }).toBe(true);
  }, 40_000);

  it('max steps: a task that never finishes fails with that reason', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Keep looking [[forever]]', constraints: { max_steps: 3 } });
    const failed = await waitTask(task.id, 'failed');
    expect(failed.task).toMatchObject({ status: 'failed', steps: 3, error: 'max steps reached: 3 of 3' });
  }, 40_000);

  it('the time limit: a task still working when it runs out fails with that reason', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Keep looking [[forever]]', constraints: { max_steps: 200, timeout_s: 1 } });
    const failed = await waitTask(task.id, 'failed');
    expect(failed.task.error).toMatch(/^timeout: 1 s of 1 s$/);
    expect(failed.task.steps).toBeLessThan(200);
  }, 40_000);

  it('the token budget: a call whose worst case would pass the cap is never made', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Keep looking [[forever]]', constraints: { max_tokens: 2_500 } });
    const failed = await waitTask(task.id, 'failed');
    expect(failed.task.error).toMatch(/^token budget: [\d,]+ used, the next call could take [\d,]+ more, the cap is 2,500$/);
    expect(failed.task.usage.input_tokens + failed.task.usage.output_tokens).toBeLessThanOrEqual(2_500);
  }, 40_000);

  it('the same call with the same result: told once, then the task fails', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Look again [[repeat]]' });
    const failed = await waitTask(task.id, 'failed');
    expect(failed.task.error).toMatch(/^repeated calls: list_files \{"path":"\."\} gave the same result again after the warning$/);
    expect(failed.task.steps).toBe(4);
  }, 40_000);

  it('the tools a task may use are enforced by the server', async () => {
    const session = await newSession();
    const task = await submit(session.id, { goal: 'Write notes and show them [[approve]]', constraints: { tools: ['read_file'] } });
    // The script writes, then runs bash (a card, were bash allowed), then finishes: both refused
    // by the server before anything ran — no card ever waited — and the task still ends.
    await waitTask(task.id, 'completed');
    const calls = await listToolCalls({ sessionId: session.id });
    const outside = calls.filter((call) => call.name === 'write_file' || call.name === 'bash');
    expect(outside.map((call) => [call.name, call.status])).toEqual([
      ['write_file', 'failed'],
      ['bash', 'failed'],
    ]);
    for (const call of outside) expect(call.result).toMatch(/^CAPABILITY_NOT_AVAILABLE/);
    expect(fs.existsSync(path.join(dirs.dataDir, 'workspaces', session.id, 'notes.txt'))).toBe(false);
  }, 40_000);

  it('one task at a time per session; cancel stops the one waiting on a card and the next starts', async () => {
    const session = await newSession();
    const first = await submit(session.id, { goal: 'Write notes and show them [[approve]]' });
    const second = await submit(session.id, { goal: 'Pick a colour [[ask]]' });
    expect(second.status).toBe('pending');
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.name === 'bash' && event.call.status === 'awaiting_approval', timeoutMs: 20_000 });
    const cancelled = await orchestrator.tasks.cancel(first.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', error: 'cancelled by the user' });
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.find((call) => call.id === card.call.id)?.status).toBe('cancelled');
    await waitTask(second.id, 'blocked'); // the next one started on its own
    expect((await orchestrator.tasks.cancel(second.id)).status).toBe('cancelled');
    await expect(orchestrator.tasks.cancel(second.id)).rejects.toThrow(/already cancelled/);
  }, 40_000);
});

