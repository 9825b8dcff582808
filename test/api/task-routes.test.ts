// The task routes with real Requests against the real orchestrator, store and fake model: submit
// (201, or a clear 4xx that creates nothing), list, read, resume, cancel and the trace download.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sessionTasks from '@/app/api/sessions/[id]/tasks/route';
import * as taskItem from '@/app/api/tasks/[id]/route';
import * as cancel from '@/app/api/tasks/[id]/cancel/route';
import * as resume from '@/app/api/tasks/[id]/resume/route';
import * as trace from '@/app/api/tasks/[id]/trace/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { listTasks } from '@/lib/store/tasks-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let fake: FakeOpenAIServer;
let events: EventRecorder;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  fake = await startFakeOpenAIServer({ script: taskScript });
  events = new EventRecorder((await startOrchestrator({ taskWorkingDelayMs: 0 })).bus);
});
afterAll(async () => {
  events.close();
  await stopOrchestrator();
  await fake.close();
});

const base = 'http://127.0.0.1:3000';
const post = (body: unknown) => new Request(`${base}/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });

async function expectError(response: Response, status: number, code: string, pattern: RegExp) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(pattern);
}

async function newSession() {
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  return getOrchestrator().createSession({ persona: 'tester', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
}

type TaskBody = { task: { id: string; status: string; trace_id: string; constraints: unknown; blocked_on: unknown; result: string | null } };

describe('task routes', () => {
  it('submit, see it blocked on its question, answer it, see it complete; cancel after is a 409', async () => {
    const session = await newSession();
    const created = await sessionTasks.POST(post({ goal: 'Pick a colour [[ask]]', constraints: { max_steps: 5 } }), idContext(session.id));
    expect(created.status).toBe(201);
    const { task } = (await created.json()) as TaskBody;
    expect(task.constraints).toEqual({ max_steps: 5, timeout_s: 1800 });
    await events.waitFor('task.blocked', { where: (event) => event.task.id === task.id, timeoutMs: 15_000 });
    const read = (await (await taskItem.GET(new Request(`${base}/x`), idContext(task.id))).json()) as TaskBody;
    expect(read.task.blocked_on).toEqual({ kind: 'question', question: 'Which colour?' });

    await expectError(await resume.POST(post({ input: 5 }), idContext(task.id)), 400, 'validation_failed', /input/);
    expect((await resume.POST(post({ input: 'teal' }), idContext(task.id))).status).toBe(200);
    await events.waitFor('task.completed', { where: (event) => event.task.id === task.id, timeoutMs: 15_000 });
    const listed = (await (await sessionTasks.GET(new Request(`${base}/x`), idContext(session.id))).json()) as { tasks: TaskBody['task'][] };
    expect(listed.tasks.map((item) => [item.id, item.status, item.result])).toEqual([[task.id, 'completed', 'Colour chosen: teal']]);
    await expectError(await cancel.POST(post({}), idContext(task.id)), 409, 'conflict', /already completed/);
    await expectError(await resume.POST(post({ input: 'x' }), idContext(task.id)), 409, 'conflict', /not waiting/);

    const download = await trace.GET(new Request(`${base}/x`), idContext(task.id));
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="task-${task.id}.json"`);
    const exported = (await download.json()) as { trace_id: string; tool_calls: { trace_id: string; name: string }[]; llm_calls: unknown[] };
    expect(exported.trace_id).toBe(task.trace_id);
    expect(exported.tool_calls.map((call) => [call.name, call.trace_id])).toEqual([
      ['ask_user', task.trace_id],
      ['finish_task', task.trace_id],
    ]);
    expect(exported.llm_calls.length).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('bad requests: a clear 4xx, and no task is created', async () => {
    const session = await newSession();
    const before = (await listTasks({})).length;
    await expectError(await sessionTasks.POST(post('{nope'), idContext(session.id)), 400, 'invalid_json', /JSON/);
    await expectError(await sessionTasks.POST(post({ goal: '  ' }), idContext(session.id)), 400, 'validation_failed', /goal must not be empty/);
    await expectError(await sessionTasks.POST(post({ goal: 'x', constraints: { max_steps: 0 } }), idContext(session.id)), 400, 'validation_failed', /max_steps/);
    await expectError(await sessionTasks.POST(post({ goal: 'x', constraints: { tools: ['rm -rf /'] } }), idContext(session.id)), 400, 'validation_failed', /tools/);
    await expectError(await sessionTasks.POST(post({ goal: 'x', priority: 'high' }), idContext(session.id)), 400, 'validation_failed', /priority/);
    await expectError(await sessionTasks.POST(post({ goal: 'x\u0000y' }), idContext(session.id)), 400, 'validation_failed', /goal: must not contain NUL characters/);
    await expectError(await sessionTasks.POST(post({ goal: 'x', context: '\u0000' }), idContext(session.id)), 400, 'validation_failed', /context: must not contain NUL characters/);
    await expectError(await sessionTasks.POST(post({ goal: 'x' }), idContext('11111111-2222-4333-8444-555555555555')), 404, 'not_found', /does not exist/);
    expect((await listTasks({})).length).toBe(before);
    await expectError(await taskItem.GET(new Request(`${base}/x`), idContext('not-a-uuid')), 404, 'not_found', /UUID/);
    await expectError(await taskItem.GET(new Request(`${base}/x`), idContext('11111111-2222-4333-8444-555555555555')), 404, 'not_found', /does not exist/);
    await expectError(await cancel.POST(post({}), idContext('11111111-2222-4333-8444-555555555555')), 404, 'not_found', /does not exist/);
  });
});
