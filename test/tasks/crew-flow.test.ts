// Seed 001's flow end to end on the fake model (issue 34, requirement 3): "Try the crew" installs
// the general assistant, the researcher and the reviewer (personas and graphs) and starts the lead's
// first task; the lead notes what matters and delegates the review; the reviewer reads the lead's
// note from the team's shared short-term memory and answers; the lead finishes with the verdict. The
// parent's session shows the child nested (tasks route, mirrored events); the trace download links
// the two by their trace ids.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as crew from '@/app/api/crew/route';
import * as sessionTasks from '@/app/api/sessions/[id]/tasks/route';
import * as trace from '@/app/api/tasks/[id]/trace/route';
import { readPersonaGraph } from '@/lib/capabilities/graph-store';
import { capabilitiesOf } from '@/lib/capabilities/capability-set';
import { listMemories } from '@/lib/memory/memory-store';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { sessionJson } from '@/lib/http/session-json';
import { findSession } from '@/lib/store/sessions-repository';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { crewScript, LEAD_NOTE } from '@/test/fakes/crew-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ skills: { 'plan-task': { 'SKILL.md': '---\nname: plan-task\ndescription: Plan a task as a checklist.\n---\nMake a checklist.\n' }, 'bug-report': { 'SKILL.md': '---\nname: bug-report\ndescription: Write a clear bug report.\n---\nSteps, expected, actual.\n' } } });
let fake: FakeOpenAIServer;
let events: EventRecorder;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  fake = await startFakeOpenAIServer({ script: crewScript });
  events = new EventRecorder((await startOrchestrator({ taskWorkingDelayMs: 0 })).bus);
  // A fresh install's defaults, pointed at the fake: the crew's sessions take them.
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  await writeSettings({ ...(await readSettings()), models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
});
afterAll(async () => {
  events.close();
  await stopOrchestrator();
  await fake.close();
});

const post = (body: unknown, type = 'application/json') => new Request('http://127.0.0.1:3000/api/crew', { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });

type TaskBody = { id: string; session_id: string; status: string; result: string | null; parent_task_id: string | null; trace_id: string; specialist?: string };
type TraceBody = { version: number; trace_id: string; parent_trace_id: string | null; parent_task_id: string | null; task: TaskBody; tool_calls: { name: string; trace_id: string }[]; llm_calls: unknown[]; children: TraceBody[] };

describe('Try the crew', () => {
  it('installs the crew, the lead delegates the review, the reviewer reads the lead’s note, the lead finishes with the verdict', async () => {
    const response = await crew.POST(post({}), undefined);
    expect(response.status).toBe(201);
    const started = (await response.json()) as { session: { id: string; persona: string }; task: TaskBody; installed: { personas: string[]; graphs: string[] } };
    expect(started.installed).toEqual({ personas: ['general-assistant', 'researcher', 'reviewer'], graphs: ['general-assistant', 'researcher', 'reviewer'] });
    expect(started.session.persona).toBe('general-assistant');

    // Each member's graph: the lead has skills and both specialists; the reviewer reads only.
    const lead = capabilitiesOf((await readPersonaGraph('general-assistant'))!);
    expect([lead.specialists, lead.skills]).toEqual([['researcher', 'reviewer'], ['bug-report', 'plan-task']]);
    const reviewer = capabilitiesOf((await readPersonaGraph('reviewer'))!);
    expect([reviewer.specialists, reviewer.skills, reviewer.builtinTools.includes('bash'), reviewer.builtinTools.includes('python'), reviewer.builtinTools.includes('read_file')]).toEqual([[], ['bug-report'], false, false, true]);

    const done = await events.waitFor('task.completed', { where: (event) => event.task.id === started.task.id, timeoutMs: 40_000 });
    expect(done.task.result).toBe('v1.2: faster start, --json, two fixes. Ship after one fix: cut "blazing" (as the lead noted, five lines for existing users).');

    // The parent's session lists the child, marked with its specialist; its events reached the parent's session too.
    const listed = (await (await sessionTasks.GET(new Request('http://127.0.0.1:3000/x'), idContext(started.session.id))).json()) as { tasks: TaskBody[] };
    const child = listed.tasks.find((task) => task.parent_task_id === started.task.id)!;
    expect(child).toMatchObject({ specialist: 'reviewer', status: 'completed' });
    expect(child.session_id).not.toBe(started.session.id);
    expect(events.of('task.completed', started.session.id).map((event) => [event.task.id, event.task.specialist])).toEqual([
      [child.id, 'reviewer'],
      [started.task.id, undefined],
    ]);

    // Its task done, the reviewer's session parks (no Subconscious cycling for nobody).
    await vi.waitFor(async () => expect((await findSession({ id: child.session_id }))?.status).toBe('paused'), { timeout: 10_000 });
    expect((await findSession({ id: started.session.id }))?.status).toBe('active');
    expect(sessionJson((await findSession({ id: child.session_id }))!).parent_session_id).toBe(started.session.id);

    // One trace download holds both, linked by their trace ids.
    const download = (await (await trace.GET(new Request('http://127.0.0.1:3000/x'), idContext(started.task.id))).json()) as TraceBody;
    expect(download).toMatchObject({ version: 2, trace_id: started.task.trace_id, parent_trace_id: null });
    expect(download.tool_calls.map((call) => call.name)).toEqual(['note', 'update_plan', 'delegate', 'finish_task']);
    expect(download.children).toHaveLength(1);
    expect(download.children[0]).toMatchObject({ trace_id: child.trace_id, parent_trace_id: started.task.trace_id, parent_task_id: started.task.id });
    expect(download.children[0]!.tool_calls.map((call) => [call.name, call.trace_id])).toEqual([['finish_task', child.trace_id]]);
    expect(download.children[0]!.llm_calls.length).toBeGreaterThan(0);
    // The child's own download names its parent's trace.
    const childDownload = (await (await trace.GET(new Request('http://127.0.0.1:3000/x'), idContext(child.id))).json()) as TraceBody;
    expect(childDownload).toMatchObject({ trace_id: child.trace_id, parent_trace_id: started.task.trace_id });

    // The team's note became the lead's long-term memory when its task completed.
    expect((await listMemories({ personaName: 'general-assistant', scope: 'long' })).map((memory) => memory.content)).toContain(LEAD_NOTE);
  }, 60_000);

  it('a second click keeps what the user changed (persona text, graphs) and starts another session; bad input is a clear 4xx', async () => {
    const file = path.join(dirs.personasDir, 'reviewer.md');
    fs.writeFileSync(file, '# My own reviewer\n');
    const again = await crew.POST(post({ goal: 'Say hello' }), undefined);
    expect(again.status).toBe(201);
    const body = (await again.json()) as { installed: unknown; task: TaskBody };
    expect(body.installed).toEqual({ personas: [], graphs: [] });
    expect(fs.readFileSync(file, 'utf8')).toBe('# My own reviewer\n');
    expect((await getOrchestrator().tasks.cancel(body.task.id)).status).toBe('cancelled');

    const wrong = await crew.POST(post({ goal: 5 }), undefined);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    expect((await crew.POST(post('goal=x', 'text/plain'), undefined)).status).toBe(415);
    expect((await crew.POST(post({ extra: true }), undefined)).status).toBe(400);
  }, 60_000);
});
