// Killing the real server under a task (issue 19, requirement 2, at the app level), shared by
// e2e/task-crash.spec.ts (one round of each kind per engine) and `npm run bench:reliability`
// (20 rounds on DBOS). A round starts a server, makes a session and a task, kills the server with
// SIGKILL at a chosen point, starts it again and checks what a user must be able to rely on. It
// returns what broke instead of throwing, so a benchmark can count.
import pg from 'pg';
import type { SpawnedServer } from './spawn-server';

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

export interface KillRoundSetup {
  /** Starts (or restarts) the server on the round's folder. */
  start(): Promise<SpawnedServer>;
  base: string;
  fakeEndpoint: string;
  /** Set when the server runs DBOS: its journal is checked too. */
  databaseUrl?: string;
}

export interface TaskKillRound {
  kind: 'running' | 'card';
  /** Steps the task had finished when the server was killed. */
  stepsAtKill: number;
  /** Restart → task ended (ms). */
  restartToEndMs: number;
  failures: string[];
}

function client(base: string) {
  const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}${url}`, { method, headers: { origin: base, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const json = (await response.json()) as T & { error?: { message: string } };
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${json.error?.message}`);
    return json;
  };
  const until = async <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 60_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    api,
    until,
    task: (id: string) => api<{ task: TaskJson }>('GET', `/api/tasks/${id}`).then((body) => body.task),
    calls: (sessionId: string) => api<{ tool_calls: CallJson[] }>('GET', `/api/sessions/${sessionId}/tool-calls`).then((body) => body.tool_calls),
  };
}

async function kill(server: SpawnedServer, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill(signal);
  await server.exited;
}

async function newSession(setup: KillRoundSetup, name: string): Promise<string> {
  const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 512, endpoint: setup.fakeEndpoint });
  const { session } = await client(setup.base).api<{ session: { id: string } }>('POST', '/api/sessions', { persona: 'iris', name, models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });
  return session.id;
}

/**
 * A task of `maxSteps` steps that never finishes (one grep per step) killed once it has finished
 * `killAfterSteps`: after the restart it ends at its step limit; each step's grep ran once (none
 * left running), one chat message per step (streamed tokens are not journaled); on DBOS the run
 * was recovered and journaled each step once.
 */
export async function runningKillRound(setup: KillRoundSetup, options: { maxSteps: number; killAfterSteps: number; graceful?: boolean }): Promise<TaskKillRound> {
  const { api, until, task, calls } = client(setup.base);
  const failures: string[] = [];
  let server = await setup.start();
  try {
    const sessionId = await newSession(setup, 'Crash run');
    // Graceful: SIGTERM (Ctrl-C, an upgrade's stop) while a step's model call is held (issue 73 §1–2).
    const goal = options.graceful ? 'Keep looking [[forever]] [[slow]]' : 'Keep looking [[forever]]';
    const { task: created } = await api<{ task: TaskJson }>('POST', `/api/sessions/${sessionId}/tasks`, { goal, constraints: { max_steps: options.maxSteps } });
    const before = await until('steps before the kill', () => task(created.id), (value) => value.steps >= options.killAfterSteps);
    if (options.graceful) await new Promise((resolve) => setTimeout(resolve, 400)); // into the next step's held call
    await kill(server, options.graceful ? 'SIGTERM' : 'SIGKILL');
    if (options.graceful && server.child.exitCode !== 0) failures.push(`the stop did not end cleanly: exit ${server.child.exitCode} ${server.child.signalCode ?? ''}`);
    const restarted = performance.now();
    server = await setup.start();
    const ended = await until('the end', () => task(created.id), (value) => value.status === 'failed' || value.status === 'completed');
    const restartToEndMs = performance.now() - restarted;
    if (before.steps >= options.maxSteps) failures.push(`the task had ended before the kill (${before.steps} steps)`);
    if (ended.steps !== options.maxSteps || ended.error !== `max steps reached: ${options.maxSteps} of ${options.maxSteps}`) failures.push(`ended ${ended.status} after ${ended.steps} steps: ${ended.error}`);
    const greps = (await calls(sessionId)).filter((call) => call.name === 'grep');
    const unfinished = greps.filter((call) => !['succeeded', 'interrupted'].includes(call.status));
    if (unfinished.length > 0) failures.push(`${unfinished.length} grep(s) left ${unfinished.map((call) => call.status).join(', ')}`);
    if (new Set(greps.map((call) => call.args_hash)).size !== greps.length) failures.push('a step ran its grep twice');
    const { messages } = await api<{ messages: { tag: string; content: string; turn_id: string | null }[] }>('GET', `/api/sessions/${sessionId}/history?layer=external&limit=500`);
    const said = messages.filter((message) => message.tag === 'ED_agent').map((message) => message.content.match(/^Step (\d+):/)?.[1]);
    const expected = Array.from({ length: options.maxSteps }, (_, index) => String(index + 1));
    if (JSON.stringify(said) !== JSON.stringify(expected)) failures.push(`chat messages by step ${JSON.stringify(said)}, expected one per step`);
    if (setup.databaseUrl) {
      const journal = await dbosJournal(setup.databaseUrl, created.id);
      const steps = journal.steps.filter((name) => name.startsWith('step-'));
      if (journal.status !== 'SUCCESS') failures.push(`DBOS run ${journal.status}`);
      if (journal.attempts < 2) failures.push('the DBOS run was not recovered (dispatched once)');
      if (JSON.stringify(steps) !== JSON.stringify(Array.from({ length: options.maxSteps }, (_, index) => `step-${index}`))) failures.push(`DBOS journal ${JSON.stringify(steps)}`);
    }
    return { kind: 'running', stepsAtKill: before.steps, restartToEndMs, failures };
  } catch (error) {
    return { kind: 'running', stepsAtKill: -1, restartToEndMs: Number.NaN, failures: [`${(error as Error).message.slice(0, 600)} — server said: ${server.output().slice(-1500)}`] };
  } finally {
    await kill(server);
  }
}

/**
 * A task killed while its step waits on a card: after the restart the card is there; approving it
 * runs the command once; the task asks its question, is answered and completes with the answer.
 */
export async function cardKillRound(setup: KillRoundSetup): Promise<TaskKillRound> {
  const { api, until, task, calls } = client(setup.base);
  const failures: string[] = [];
  let server = await setup.start();
  try {
    const sessionId = await newSession(setup, 'Crash task');
    const { task: created } = await api<{ task: TaskJson }>('POST', `/api/sessions/${sessionId}/tasks`, { goal: 'Write notes, show them and title them [[full]]' });
    const before = await until('the card', () => task(created.id), (value) => value.blocked_on?.kind === 'approval');
    await kill(server);
    const restarted = performance.now();
    server = await setup.start();
    const card = await until('the card again', () => calls(sessionId), (list) => list.some((call) => call.name === 'bash' && call.status === 'awaiting_approval'));
    const bash = card.find((call) => call.name === 'bash')!;
    await api('POST', `/api/tool-calls/${bash.id}/decision`, { decision: 'approve', session_id: bash.session_id, args_hash: bash.args_hash });
    await until('the question', () => task(created.id), (value) => value.blocked_on?.kind === 'question');
    await api('POST', `/api/tasks/${created.id}/resume`, { input: 'Groceries' });
    const done = await until('completion', () => task(created.id), (value) => value.status === 'completed' || value.status === 'failed');
    const restartToEndMs = performance.now() - restarted;
    if (done.result !== 'Notes titled "Groceries"') failures.push(`ended ${done.status}: ${done.result ?? done.error}`);
    const statuses = (await calls(sessionId)).filter((call) => call.name === 'bash').map((call) => call.status);
    if (JSON.stringify(statuses) !== '["succeeded"]') failures.push(`bash calls ${JSON.stringify(statuses)}`);
    return { kind: 'card', stepsAtKill: before.steps, restartToEndMs, failures };
  } catch (error) {
    // A round that stalls is a failure to report with what the server said, not the end of a run of rounds.
    return { kind: 'card', stepsAtKill: -1, restartToEndMs: Number.NaN, failures: [`${(error as Error).message.slice(0, 600)} — server said: ${server.output().slice(-1500)}`] };
  } finally {
    await kill(server);
  }
}

/** The durable engine's record of a task's run, read from DBOS's own tables. */
export async function dbosJournal(url: string, runId: string): Promise<{ status: string; attempts: number; steps: string[] }> {
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  try {
    const run = await connection.query<{ status: string; recovery_attempts: string }>('SELECT status, recovery_attempts FROM dbos.workflow_status WHERE workflow_uuid = $1', [runId]);
    const steps = await connection.query<{ function_name: string }>('SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id', [runId]);
    return { status: run.rows[0]?.status ?? 'none', attempts: Number(run.rows[0]?.recovery_attempts ?? 0), steps: steps.rows.map((row) => row.function_name) };
  } finally {
    await connection.end();
  }
}
