// kill -9 of the real server while a task waits on a card and while a task is mid-run: after the
// restart the card is still there and approving it runs the call once and the task goes on; the
// running task continues from its last finished step, nothing is run twice. Both engines: the
// default in-memory one (the task continues from its records) and DBOS on a PostgreSQL the spec
// starts (the run is recovered from its journal, finished steps answered from it).
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../test/support/postgres';
import { fakeLlmEndpoint } from './support/fake-models';
import { spawnServer, type SpawnedServer } from './support/spawn-server';

const port = Number(process.env.E2E_TASK_CRASH_PORT ?? 3214);
const base = `http://127.0.0.1:${port}`;

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${url}`, { method, headers: { origin: base, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const json = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${json.error?.message}`);
  return json;
}

interface TaskJson {
  id: string;
  status: string;
  steps: number;
  result: string | null;
  error: string | null;
  blocked_on: { kind: string } | null;
}
interface CallJson {
  id: string;
  name: string;
  status: string;
  args_hash: string;
  session_id: string;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const task = (id: string) => api<{ task: TaskJson }>('GET', `/api/tasks/${id}`).then((body) => body.task);
const calls = (sessionId: string) => api<{ tool_calls: CallJson[] }>('GET', `/api/sessions/${sessionId}/tool-calls`).then((body) => body.tool_calls);
const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 512, endpoint: fakeLlmEndpoint });

let postgres: TestPostgres | null = null;
test.afterAll(async () => {
  await postgres?.stop();
});

async function engineEnv(engine: 'memory' | 'dbos', root: string): Promise<Record<string, string>> {
  if (engine === 'memory') return {};
  postgres ??= await startPostgres();
  const database = root.replace(/\W+/g, '_').toLowerCase();
  return { AGENTCSD_ENGINE: 'dbos', AGENTCSD_DATABASE_URL: postgres.url.replace(/\/postgres$/, `/${database}`), AGENTCSD_EXECUTOR_ID: 'e2e-crash' };
}

async function kill(server: SpawnedServer) {
  server.child.kill('SIGKILL');
  await server.exited;
}

for (const engine of ['memory', 'dbos'] as const) {
  test(`${engine} engine: kill -9 while a task waits on a card: after the restart the card is there, approving runs it once, the task completes`, async () => {
    test.setTimeout(180_000);
    const root = `test-results/e2e-task-crash-card-${engine}`;
    const env: Record<string, string> = { AGENTCSD_TASK_STEP_DELAY_MS: '150', ...(await engineEnv(engine, root)) };
    const start = (folder: string) => spawnServer({ root: folder, port, env });
    let server = await start(root);
    expect(server.output()).toContain(engine === 'dbos' ? '> engine: DBOS on' : '> engine: in-memory');
    try {
      const { session } = await api<{ session: { id: string } }>('POST', '/api/sessions', { persona: 'iris', name: 'Crash task', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });
      const { task: created } = await api<{ task: TaskJson }>('POST', `/api/sessions/${session.id}/tasks`, { goal: 'Write notes, show them and title them [[full]]' });
      await until('the card', () => task(created.id), (value) => value.blocked_on?.kind === 'approval');
      await kill(server);

      server = await start(root);
      const card = await until('the card again', () => calls(session.id), (list) => list.some((call) => call.name === 'bash' && call.status === 'awaiting_approval'));
      const bash = card.find((call) => call.name === 'bash')!;
      await api('POST', `/api/tool-calls/${bash.id}/decision`, { decision: 'approve', session_id: bash.session_id, args_hash: bash.args_hash });
      await until('the question', () => task(created.id), (value) => value.blocked_on?.kind === 'question');
      await api('POST', `/api/tasks/${created.id}/resume`, { input: 'Groceries' });
      const done = await until('completion', () => task(created.id), (value) => value.status === 'completed');
      expect(done.result).toBe('Notes titled "Groceries"');
      expect((await calls(session.id)).filter((call) => call.name === 'bash').map((call) => call.status)).toEqual(['succeeded']);
    } finally {
      await kill(server);
    }
  });

  test(`${engine} engine: kill -9 while a task runs: it continues from its last finished step after the restart and nothing runs twice`, async () => {
    test.setTimeout(180_000);
    const root = `test-results/e2e-task-crash-running-${engine}`;
    const env: Record<string, string> = { AGENTCSD_TASK_STEP_DELAY_MS: '150', ...(await engineEnv(engine, root)) };
    const start = (folder: string) => spawnServer({ root: folder, port, env });
    let server = await start(root);
    try {
      const { session } = await api<{ session: { id: string } }>('POST', '/api/sessions', { persona: 'iris', name: 'Crash run', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });
      const { task: created } = await api<{ task: TaskJson }>('POST', `/api/sessions/${session.id}/tasks`, { goal: 'Keep looking [[forever]]', constraints: { max_steps: 10 } });
      const before = await until('a few steps', () => task(created.id), (value) => value.steps >= 3);
      await kill(server);

      server = await start(root);
      const ended = await until('the end', () => task(created.id), (value) => value.status === 'failed');
      expect(before.steps).toBeLessThan(10);
      expect(ended).toMatchObject({ steps: 10, error: 'max steps reached: 10 of 10' });
      // One grep per step, each with its own pattern: none ran twice, none is left running.
      const greps = (await calls(session.id)).filter((call) => call.name === 'grep');
      expect(greps.every((call) => ['succeeded', 'interrupted'].includes(call.status))).toBe(true);
      expect(new Set(greps.map((call) => call.args_hash)).size).toBe(greps.length);
      // What streamed to the chat is not journaled: the step cut by the kill left no half message
      // beside the one its re-run wrote — one message per step in the end.
      const { messages } = await api<{ messages: { tag: string; content: string; turn_id: string | null }[] }>('GET', `/api/sessions/${session.id}/history?layer=external&limit=500`);
      const said = messages.filter((message) => message.tag === 'ED_agent');
      expect(said.map((message) => message.content.match(/^Step (\d+):/)?.[1])).toEqual(Array.from({ length: 10 }, (_, index) => String(index + 1)));
      expect(new Set(said.map((message) => message.turn_id)).size).toBe(10);
      if (engine === 'dbos') {
        // The run was recovered, not started afresh: DBOS dispatched it again and its journal holds
        // each step once (the steps before the kill answered from it, not run again).
        const journal = await dbosJournal(env.AGENTCSD_DATABASE_URL!, created.id);
        expect(journal.status).toBe('SUCCESS');
        expect(journal.attempts).toBeGreaterThanOrEqual(2);
        expect(journal.steps.filter((name) => name.startsWith('step-'))).toEqual(Array.from({ length: 10 }, (_, index) => `step-${index}`));
      }
    } finally {
      await kill(server);
    }
  });
}

/** The durable engine's record of a task's run, read from DBOS's own tables. */
async function dbosJournal(url: string, runId: string): Promise<{ status: string; attempts: number; steps: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const run = await client.query<{ status: string; recovery_attempts: string }>('SELECT status, recovery_attempts FROM dbos.workflow_status WHERE workflow_uuid = $1', [runId]);
    const steps = await client.query<{ function_name: string }>('SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id', [runId]);
    return { status: run.rows[0]?.status ?? 'none', attempts: Number(run.rows[0]?.recovery_attempts ?? 0), steps: steps.rows.map((row) => row.function_name) };
  } finally {
    await client.end();
  }
}
