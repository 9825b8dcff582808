// "Their words stay their own" on every path (issue 72 §2.2). The red-team read a person's
// conversation through six doors the switch left open: a memory by its (sequential) id, a task and
// its trace (goal, context, every call), a session's schedules (what they will say), the agent's
// browser (where it is). With the switch on, each asks the same words rule: the owner gets the
// 403 (or, for a memory, the 404 of one that does not exist); the person in the conversation reads
// it all; with the switch off, the owner does too. The real routes, orchestrator and store.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as memoryRoute from '@/app/api/memories/[id]/route';
import * as privacyRoute from '@/app/api/people/privacy/route';
import * as browserRoute from '@/app/api/sessions/[id]/browser/route';
import * as schedulesRoute from '@/app/api/sessions/[id]/schedules/route';
import * as taskRoute from '@/app/api/tasks/[id]/route';
import * as traceRoute from '@/app/api/tasks/[id]/trace/route';
import { appendMemory } from '@/lib/memory/memory-store';
import { startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { OWNER_ID } from '@/lib/store/people-repository';
import { insertSchedule } from '@/lib/store/triggers-repository';
import { insertTask } from '@/lib/store/tasks-repository';
import { ACTOR_HEADER } from '@/lib/web-auth/web-entry';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\nWarm.\n' } });
const gus = randomUUID();
let session = '';
let memoryId = 0;
let sharedId = 0;
let taskId = '';

const as = (personId: string, pathname: string, init: RequestInit = {}) =>
  new Request(`http://127.0.0.1:3000${pathname}`, { ...init, headers: { 'content-type': 'application/json', [ACTOR_HEADER]: personId, ...(init.headers as Record<string, string>) } });
const params = (id: string | number) => ({ params: Promise.resolve({ id: String(id) }) });

beforeAll(async () => {
  const orchestrator = await startOrchestrator();
  await (await getDb()).person.create({ data: { id: gus, name: 'Gus', role: 'guest' } });
  session = (await orchestrator.createSession({ persona: 'iris', name: "Gus's" }, { people: [gus] })).id;
  memoryId = (await appendMemory({ personaName: 'iris', content: 'GUS-MEMORY: his sister is ill', kind: 'fact', sessionId: session })).memory.id;
  sharedId = (await appendMemory({ personaName: 'iris', content: 'Shared: the bins go out on Tuesday', kind: 'fact', shared: true })).memory.id;
  taskId = randomUUID();
  await insertTask({ id: taskId, sessionId: session, goal: 'GUS-GOAL: find a cheap flight to see her', context: 'GUS-CONTEXT', constraints: { max_steps: 5, timeout_s: 600 }, traceId: randomUUID() });
  await insertSchedule({ id: randomUUID(), sessionId: session, name: 'reminder', kind: 'once', expression: '2030-01-01T09:00', timeZone: 'UTC', action: { kind: 'message', text: 'GUS-SCHEDULE: call the hospital' }, catchUp: 'once', createdBy: 'agent', nextFireAt: new Date('2030-01-01T09:00:00Z') });
}, 30_000);

afterAll(async () => {
  await stopOrchestrator();
});

/** Each path, as a person reads it: its status and whether its body holds a word of Gus's. */
async function read(personId: string) {
  const body = async (response: Response) => ({ status: response.status, words: /GUS-/.test(await response.text()) });
  return {
    memory: await body(await memoryRoute.GET(as(personId, `/api/memories/${memoryId}`), params(memoryId))),
    task: await body(await taskRoute.GET(as(personId, `/api/tasks/${taskId}`), params(taskId))),
    trace: await body(await traceRoute.GET(as(personId, `/api/tasks/${taskId}/trace`), params(taskId))),
    schedules: await body(await schedulesRoute.GET(as(personId, `/api/sessions/${session}/schedules`), params(session))),
    browser: await body(await browserRoute.GET(as(personId, `/api/sessions/${session}/browser`), params(session))),
  };
}

const setPrivacy = async (on: boolean) => expect((await privacyRoute.PUT(as(OWNER_ID, '/api/people/privacy', { method: 'PUT', body: JSON.stringify({ words_stay_private: on }) }), {})).status).toBe(200);

describe("a person's words on every path (issue 72 §2.2)", () => {
  it('the switch off: the owner reads every path (the control)', async () => {
    const owner = await read(OWNER_ID);
    expect(owner).toMatchObject({ memory: { status: 200, words: true }, task: { status: 200, words: true }, trace: { status: 200, words: true }, schedules: { status: 200, words: true }, browser: { status: 200 } });
  });

  it('the switch on: every path refuses the owner, none says a word of Gus’s; a shared memory stays readable', async () => {
    await setPrivacy(true);
    try {
      const owner = await read(OWNER_ID);
      expect(owner).toEqual({
        memory: { status: 404, words: false },
        task: { status: 403, words: false },
        trace: { status: 403, words: false },
        schedules: { status: 403, words: false },
        browser: { status: 403, words: false },
      });
      // The memory answers as one that does not exist, word for word.
      const absent = await memoryRoute.GET(as(OWNER_ID, '/api/memories/999999'), params(999999));
      const hidden = await memoryRoute.GET(as(OWNER_ID, `/api/memories/${memoryId}`), params(memoryId));
      expect(((await hidden.json()) as { error: { message: string } }).error.message).toBe(((await absent.json()) as { error: { message: string } }).error.message.replace('999999', String(memoryId)));
      const patched = await memoryRoute.PATCH(as(OWNER_ID, `/api/memories/${memoryId}`, { method: 'PATCH', body: JSON.stringify({ pinned: true }) }), params(memoryId));
      expect(patched.status).toBe(404);
      expect((await memoryRoute.GET(as(OWNER_ID, `/api/memories/${sharedId}`), params(sharedId))).status).toBe(200);
    } finally {
      await setPrivacy(false);
    }
  });
});
