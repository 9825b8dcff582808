// A real full disk under the real server (issue 73 §4): the data folder lives on a small tmpfs this
// spec mounts, a task runs, and a filler file takes the rest of the space. While it is full, health
// says so (503, in words), the log grows by a bounded number of lines, the pages still answer, a
// message is refused with the disk's words and nothing is taken — and when the filler goes, the task
// continues by itself to its end, with nothing run twice. It used to retry `updateTask` about 610
// times a second (three million log lines in twelve minutes) and health said ok.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { fakeLlmEndpoint } from './support/fake-models';
import { spawnServer, type SpawnedServer } from './support/spawn-server';

const port = Number(process.env.E2E_DISK_FULL_PORT ?? 3219);
const base = `http://127.0.0.1:${port}`;
const SIZE_MB = 96;
const FULL_FOR_MS = 30_000;
const MAX_STEPS = 8;

let mountPoint: string | null = null;
let server: SpawnedServer | null = null;

test.afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  if (mountPoint) {
    execFileSync('umount', ['-l', mountPoint]);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  }
});

async function api<T>(method: string, url: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await fetch(`${base}${url}`, { method, headers: { origin: base, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: response.status, json: (await response.json()) as T };
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}\n${server?.output().slice(-1500)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Writes zeros until the file system refuses: what is left is what a few blocks are. */
function fill(file: string): void {
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = fs.openSync(file, 'w');
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
}

interface Health {
  ok: boolean;
  disk: string;
  problems: string[];
}
interface TaskJson {
  status: string;
  steps: number;
  error: string | null;
}

test('a full disk under a running task: health says so, the log stays small, pages answer, the task continues once there is room', async () => {
  test.skip(process.getuid?.() !== 0, 'mounting a size-limited tmpfs needs root (CI runs as root)');
  test.setTimeout(240_000);
  mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE_MB}m,mode=0755`, 'tmpfs', mountPoint]);
  server = await spawnServer({ root: mountPoint, port, env: { AGENTCSD_TASK_STEP_DELAY_MS: '1500' } });
  expect((await api<Health>('GET', '/api/health')).json.ok).toBe(true);

  const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 512, endpoint: fakeLlmEndpoint });
  const { json: made } = await api<{ session: { id: string } }>('POST', '/api/sessions', { persona: 'iris', name: 'Full disk', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });
  const sessionId = made.session.id;
  const { json: submitted } = await api<{ task: { id: string } }>('POST', `/api/sessions/${sessionId}/tasks`, { goal: 'Keep looking [[forever]]', constraints: { max_steps: MAX_STEPS } });
  const task = async () => (await api<{ task: TaskJson }>('GET', `/api/tasks/${submitted.task.id}`)).json.task;
  await until('two steps', task, (value) => value.steps >= 2);

  fill(path.join(mountPoint, 'filler'));
  const linesAtFull = server.output().split('\n').length;
  const health = await until('health to say the disk is full', () => api<Health>('GET', '/api/health'), (value) => value.status === 503, 10_000);
  expect(health.json.disk).toBe('full');
  expect(health.json.problems.join(' ')).toContain('The disk is full');

  // A message is refused in the disk's words (507), nothing taken.
  const refused = await api<{ error: { code: string; message: string } }>('POST', `/api/sessions/${sessionId}/messages`, { text: 'are you there?' });
  expect(refused.status, JSON.stringify(refused.json)).toBe(507);
  expect(refused.json.error.message).toContain('The disk is full');
  // The pages answer while the disk is full.
  for (const page of ['/', `/sessions/${sessionId}`, '/settings']) {
    const response = await fetch(`${base}${page}`);
    expect(response.status, page).toBe(200);
  }

  await new Promise((resolve) => setTimeout(resolve, FULL_FOR_MS));
  const whileFull = server.output().split('\n').slice(linesAtFull);
  // Backing off from 1 s doubling, each loop logs its first try and every tenth: a handful of lines, not thousands.
  expect(whileFull.length, whileFull.slice(0, 40).join('\n')).toBeLessThan(40);
  const during = await task();
  expect(during.status, JSON.stringify(during)).toMatch(/running|queued|waiting/);
  expect(during.error).toBeNull();

  fs.rmSync(path.join(mountPoint, 'filler'));
  await until('health back', () => api<Health>('GET', '/api/health'), (value) => value.status === 200, 20_000);
  const ended = await until('the task to end', task, (value) => value.status === 'completed' || value.status === 'failed', 120_000);
  expect(ended.error).toBe(`max steps reached: ${MAX_STEPS} of ${MAX_STEPS}`);
  expect(ended.steps).toBe(MAX_STEPS);
  const { json: history } = await api<{ messages: { tag: string; content: string }[] }>('GET', `/api/sessions/${sessionId}/history?layer=external&limit=500`);
  const said = history.messages.filter((message) => message.tag === 'ED_agent').map((message) => message.content.match(/^Step (\d+):/)?.[1]);
  expect(said).toEqual(Array.from({ length: MAX_STEPS }, (_, index) => String(index + 1)));
  // Nothing of the refused message was taken.
  expect(history.messages.some((message) => message.content === 'are you there?')).toBe(false);
  const { json: sent } = await api<{ error?: unknown }>('POST', `/api/sessions/${sessionId}/messages`, { text: 'back now?' });
  expect(sent.error).toBeUndefined();
});
