// A task whose run meets a full disk (or an unreachable database) waits, and goes on by itself
// (issue 73 §4: the loop retried ~610 times a second, three million log lines in twelve minutes, and
// the app stopped answering). The real TaskService, in-memory engine and store; the step's failure
// is a real SQLite "database or disk is full" (a database capped at its page count).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { realClock } from '@/lib/clock/clock';
import { defaultParams, type LayerModelConfig } from '@/lib/config/model-config';
import { InMemoryEngine } from '@/lib/engine/in-memory-engine';
import { EventBus } from '@/lib/mind/events';
import type { TurnResult } from '@/lib/mind/outcomes';
import { insertSession } from '@/lib/store/sessions-repository';
import { findTask } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { realDiskFullError } from '@/test/support/disk-full';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { TaskService } from './task-service';
import type { TaskMind } from './task-workflow';

useTempAppDirs();
const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'fake', max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' };
const services: TaskService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
  vi.restoreAllMocks();
});


/** A mind whose step writes fail while the disk is full; afterwards its step fails for a reason of its own. */
class DiskMind implements TaskMind {
  full = true;
  steps = 0;
  async whenStarted(): Promise<void> {}
  async runTaskStep(): Promise<TurnResult> {
    this.steps += 1;
    if (this.full) throw realDiskFullError();
    return { outcome: 'failed', loud: '', quiet: '', messages: [], error: { message: 'the model is down', kind: 'server' } };
  }
  setTaskActive(): void {}
  noteForSubconscious(): void {}
}

describe('a task on a full disk', () => {
  it('waits with a growing pause and a bounded log, then goes on by itself when there is room', async () => {
    const sessionId = '7a5c0000-0000-4000-8000-000000000001';
    await insertSession({ id: sessionId, name: 'disk', personaName: 'tester', personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const mind = new DiskMind();
    const tasks = new TaskService({ bus: new EventBus(), engine: new InMemoryEngine(realClock), mind: () => mind, workingDelayMs: 0 });
    services.push(tasks);
    const task = await tasks.submit(sessionId, submitTaskSchema.parse({ goal: 'Write the report' }));
    await expect.poll(() => mind.steps).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // Tries at 0 s, ~1 s, ~3 s at most (a machine slower than that makes fewer): never a loop.
    expect(mind.steps).toBeLessThanOrEqual(3);
    expect(logged.mock.calls.filter((call) => String(call[0]).includes('[tasks]')).length).toBeLessThanOrEqual(1);
    expect(String(logged.mock.calls.find((call) => String(call[0]).includes('[tasks]'))?.[0])).toMatch(/waits: The disk is full/);
    // The task is not failed for the disk: it is still the person's to finish.
    expect((await findTask(task.id))?.status).not.toBe('failed');

    mind.full = false;
    const before = mind.steps;
    await expect.poll(() => mind.steps, { timeout: 10_000 }).toBeGreaterThan(before);
  }, 30_000);
});
