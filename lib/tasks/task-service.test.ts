// A task's run never touches its session's mind before the mind has loaded. At a takeover the
// orchestrator registers the mind, then loads it; the durable engine recovers the task's run in
// between and, its first steps answered from the journal, went straight to the mind (clean-clone
// CI: "Cannot read properties of undefined (reading 'recordToolActivity')", the task failed).
import { describe, expect, it } from 'vitest';
import { realClock } from '@/lib/clock/clock';
import { defaultParams, type LayerModelConfig } from '@/lib/config/model-config';
import { InMemoryEngine } from '@/lib/engine/in-memory-engine';
import { EventBus } from '@/lib/mind/events';
import type { TurnResult } from '@/lib/mind/outcomes';
import { insertSession } from '@/lib/store/sessions-repository';
import { findTask } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { TaskService } from './task-service';
import type { TaskMind } from './task-workflow';

useTempAppDirs();

const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'fake', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };

/** A mind registered but still loading: every use before `load()` is recorded as a violation. */
class LoadingMind implements TaskMind {
  loaded = false;
  readonly early: string[] = [];
  readonly calls: string[] = [];
  private settle!: (error?: Error) => void;
  private readonly started = new Promise<void>((resolve, reject) => (this.settle = (error) => (error ? reject(error) : resolve())));

  load(): void {
    this.loaded = true;
    this.settle();
  }
  stopBeforeLoading(): void {
    this.settle(new Error('the session stopped'));
  }
  whenStarted(): Promise<void> {
    return this.started;
  }
  private use(name: string): void {
    (this.loaded ? this.calls : this.early).push(name);
  }
  async runTaskStep(): Promise<TurnResult> {
    this.use('runTaskStep');
    return { outcome: 'failed', loud: '', quiet: '', messages: [], error: { message: 'the model is down', kind: 'server' } };
  }
  setTaskActive(): void {
    this.use('setTaskActive');
  }
  noteForSubconscious(): void {
    this.use('noteForSubconscious');
  }
}

async function setUp(sessionId: string) {
  await insertSession({ id: sessionId, name: sessionId, personaName: 'tester', personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
  const mind = new LoadingMind();
  const tasks = new TaskService({ bus: new EventBus(), engine: new InMemoryEngine(realClock), mind: () => mind, workingDelayMs: 0 });
  const task = await tasks.submit(sessionId, submitTaskSchema.parse({ goal: 'Count the files' }));
  return { mind, tasks, task };
}

describe('a task whose mind is still loading', () => {
  it('waits for the mind to load, then runs its steps on it', async () => {
    const { mind, task } = await setUp('loading');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(mind.early).toEqual([]);
    expect((await findTask(task.id))!.status).toBe('pending');

    mind.load();
    await expect.poll(async () => (await findTask(task.id))!.status).toBe('failed');
    expect(mind.early).toEqual([]);
    expect(mind.calls).toEqual(['setTaskActive', 'runTaskStep', 'noteForSubconscious', 'noteForSubconscious', 'setTaskActive']);
    expect((await findTask(task.id))!.error).toBe('the model is down');
  });

  it('a mind that stops before it loads ends the run without touching it', async () => {
    const { mind, task } = await setUp('stopped');
    mind.stopBeforeLoading();
    await expect.poll(async () => (await findTask(task.id))!.status).toBe('failed');
    expect((await findTask(task.id))!.error).toMatch(/mind stopped before the task could run: the session stopped/);
    expect(mind.early).toEqual([]);
    expect(mind.calls).toEqual([]);
  });
});
