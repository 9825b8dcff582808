// Tasks across a restart of the app (a new orchestrator on the same data): one blocked on its
// question is still blocked and can be answered; one whose step waits on a card still shows the
// card, and approving it runs the call once and the task goes on to complete.
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { findTask } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let fake: FakeOpenAIServer;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  fake = await startFakeOpenAIServer({ script: taskScript });
});
afterAll(async () => {
  await fake.close();
});

async function boot() {
  const orchestrator = new Orchestrator({ taskWorkingDelayMs: 0 });
  const events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
  return { orchestrator, events };
}

async function shutDown(app: Awaited<ReturnType<typeof boot>>) {
  await app.orchestrator.stop();
  app.events.close();
  await closeDb();
}

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` });

describe('tasks across a restart', () => {
  it('blocked on a question: still blocked after the restart, then answered and completed', async () => {
    let app = await boot();
    const session = await app.orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const task = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Pick a colour [[ask]]' }));
    await app.events.waitFor('task.blocked', { where: (event) => event.task.id === task.id, timeoutMs: 15_000 });
    await shutDown(app);
    expect(await findTask(task.id)).toMatchObject({ status: 'blocked', blockedOn: { kind: 'question', question: 'Which colour?' } });

    app = await boot();
    await app.orchestrator.resumeSession(session.id); // closing the app paused the session
    await app.orchestrator.tasks.resume(task.id, 'amber');
    const done = await app.events.waitFor('task.completed', { where: (event) => event.task.id === task.id, timeoutMs: 15_000 });
    expect(done.task).toMatchObject({ result: 'Colour chosen: amber', steps: 2 });
    await shutDown(app);
  }, 40_000);

  it('a step waiting on a card: the card is still there, approving runs the call once and the task completes', async () => {
    let app = await boot();
    const session = await app.orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const task = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Write notes and show them [[approve]]' }));
    const card = await app.events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.name === 'bash' && event.call.status === 'awaiting_approval', timeoutMs: 15_000 });
    await shutDown(app);
    expect(await findTask(task.id)).toMatchObject({ status: 'blocked', stepsUsed: 1 });

    app = await boot();
    await app.orchestrator.resumeSession(session.id);
    const again = (await listToolCalls({ sessionId: session.id })).find((call) => call.id === card.call.id);
    expect(again?.status).toBe('awaiting_approval');
    await app.orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', args_hash: card.call.args_hash, session_id: session.id }, await ownerActor());
    const done = await app.events.waitFor('task.completed', { where: (event) => event.task.id === task.id, timeoutMs: 15_000 });
    expect(done.task).toMatchObject({ result: 'notes.txt holds: task notes', steps: 3 });
    const bash = (await listToolCalls({ sessionId: session.id })).filter((call) => call.name === 'bash');
    expect(bash.map((call) => call.status)).toEqual(['succeeded']);
    await shutDown(app);
  }, 40_000);

  it('repeated calls count across a restart: the task fails at the same step as without one', async () => {
    let app = await boot();
    const session = await app.orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const task = await app.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Look again [[repeat]]' }));
    await app.events.waitFor('task.step', { where: (event) => event.task.id === task.id && event.task.steps >= 2, timeoutMs: 15_000 });
    await shutDown(app);
    const before = (await findTask(task.id))!;
    expect(before.status).not.toBe('failed');

    app = await boot();
    await app.orchestrator.resumeSession(session.id);
    const failed = await app.events.waitFor('task.failed', { where: (event) => event.task.id === task.id, timeoutMs: 15_000 });
    // Without counting the calls before the restart it would take three more repeats.
    expect(failed.task).toMatchObject({ steps: 4, error: 'repeated calls: list_files {"path":"."} gave the same result again after the warning' });
    await shutDown(app);
  }, 40_000);
});
