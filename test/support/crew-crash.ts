// Seed 001's crew under a SIGKILL (issue 34, requirement 2): the lead's task waits on the reviewer's
// child task when the process running both dies in the middle of the reviewer's second step (its
// model call in flight); a new orchestrator on the same store and engine brings both back, the
// reviewer finishes, and the lead finishes with its verdict — one child, each of its steps' calls
// run once. Shared by the in-memory (SQLite) and the durable (DBOS on PostgreSQL) runs.
import { expect, vi } from 'vitest';
import { installCrew } from '@/lib/crew/crew';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { findTask } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { crewScript, crewStepOf } from '@/test/fakes/crew-script';
import type { FakeRequest } from '@/test/fakes/fake-server-core';
import { startAppProcess } from './worker-process';

export const SLOW_CREW_GOAL = 'Write a five-line release note for version 1.2 [[slow-review]]';

/** The fake as the crew; armed, it kills the process the moment the reviewer's second step calls the model. */
export async function crewFake(): Promise<{ fake: FakeOpenAIServer; arm(kill: () => void): void }> {
  let kill: (() => void) | null = null;
  const fake = await startFakeOpenAIServer({
    chunkDelayMs: 10,
    script: (request: FakeRequest) => {
      const at = crewStepOf(request);
      if (kill && at?.who === 'reviewer' && at.step === 2 && at.round === 0) {
        const now = kill;
        kill = null;
        now();
      }
      return crewScript(request);
    },
  });
  return { fake, arm: (next) => (kill = next) };
}

/** The crew's personas and graphs, and default models on the fake (a fresh install after "Try the crew"). */
export async function prepareCrew(fake: FakeOpenAIServer): Promise<void> {
  await installCrew();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  await writeSettings({ ...(await readSettings()), models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
}

/** Starts the lead's task in a process of its own; resolves with the ids once it runs. */
export async function spawnCrewProcess(env: Record<string, string>): Promise<Awaited<ReturnType<typeof startAppProcess>> & { sessionId: string; taskId: string }> {
  const started = await startAppProcess({ script: 'test/support/orchestrator-process.ts', env: { CREW_GOAL: SLOW_CREW_GOAL, ...env }, ready: 'orchestrator process ready', timeoutMs: 40_000 });
  const ids = JSON.parse(/started (\{.*\})/.exec(started.output())![1]!) as { sessionId: string; taskId: string };
  return { ...started, ...ids };
}

async function childOf(parentTaskId: string) {
  const row = await (await getDb()).task.findFirst({ where: { parentTaskId } });
  return row ? findTask(row.id) : null;
}

/** Kill during the reviewer's second step, restart with `restart`, and see both finish as they should. */
export async function crewKillRound(input: { fake: Awaited<ReturnType<typeof crewFake>>; env: Record<string, string>; restart: () => Promise<Orchestrator> }): Promise<void> {
  const running = await spawnCrewProcess(input.env);
  input.fake.arm(() => running.child.kill('SIGKILL'));
  await Promise.race([running.exited, new Promise((_, reject) => setTimeout(() => reject(new Error(`no kill: ${running.output().slice(-2000)}`)), 60_000))]);

  // Killed with the parent waiting on the child and the child's second step under way.
  const child = (await childOf(running.taskId))!;
  expect(child).toMatchObject({ status: 'running', stepsUsed: 1 });
  expect((await findTask(running.taskId))!.status).toBe('running');

  await input.restart();
  await vi.waitFor(
    async () => {
      const parent = (await findTask(running.taskId))!;
      if (parent.status !== 'completed') throw new Error(`the lead's task is ${parent.status}`);
    },
    { timeout: 60_000, interval: 200 },
  );
  const parent = (await findTask(running.taskId))!;
  expect(parent.result).toBe('v1.2: faster start, --json, two fixes. Ship after one fix: cut "blazing" (as the lead noted, five lines for existing users).');
  // One child, finished, each of its reading steps' calls run once.
  expect(await (await getDb()).task.count({ where: { parentTaskId: running.taskId } })).toBe(1);
  const finished = (await findTask(child.id))!;
  expect(finished).toMatchObject({ status: 'completed', stepsUsed: 4 });
  const recalls = (await listToolCalls({ sessionId: child.sessionId })).filter((call) => call.name === 'recall' && call.status === 'succeeded').map((call) => call.args?.query);
  expect(recalls).toEqual(['release note part 1', 'release note part 2', 'release note part 3']);
}
