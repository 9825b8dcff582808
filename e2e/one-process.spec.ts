// One app process per data folder: a second server started on the same folder (another port)
// stops before it opens the database, naming the first; the first one's sessions keep running,
// still active, their cycle numbers written once. After the first is killed with SIGKILL, a new
// server on the folder takes its lock over and resumes the session.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { fakeLlmEndpoint } from './support/fake-models';
import { serverFolders, spawnServer } from './support/spawn-server';

const port = Number(process.env.E2E_ONE_PROCESS_PORT ?? 3214);
const base = `http://127.0.0.1:${port}`;
const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 512, endpoint: fakeLlmEndpoint });

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${url}`, { method, headers: { origin: base, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const json = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${json.error?.message}`);
  return json;
}

/** Starts the server with `env` and waits for it to give up: its exit code and everything it printed. */
async function startAndExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], { env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output };
}

test('a second server on the same data folder refuses to start; the first keeps its sessions; after a kill -9 the folder is taken over', async () => {
  test.setTimeout(120_000);
  const root = 'test-results/e2e-one-process';
  let first = await spawnServer({ root, port });
  try {
    const { session } = await api<{ session: { id: string } }>('POST', '/api/sessions', { persona: 'iris', name: 'One owner', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });

    const { dataDir, personasDir } = serverFolders(root);
    const second = await startAndExit({ PORT: String(port + 1), AGENTCSD_DATA_DIR: dataDir, AGENTCSD_PERSONAS_DIR: personasDir });
    expect(second.code).toBe(1);
    expect(second.output).toContain(`${path.resolve(dataDir)} is in use by another AgentCSD process (pid ${first.child.pid}, port ${port}`);
    expect(second.output).not.toContain('AgentCSD ready');

    // Another folder on the same port: it says so and leaves.
    const other = serverFolders(`${root}-other`);
    const taken = await startAndExit({ PORT: String(port), AGENTCSD_DATA_DIR: other.dataDir, AGENTCSD_PERSONAS_DIR: other.personasDir });
    expect(taken.code).toBe(1);
    expect(taken.output).toContain(`> port ${port} on 127.0.0.1 is in use`);

    // The database unreachable (the store opens on it first, then the engine): one clear line, the password masked, nothing held.
    const unreachable = await startAndExit({
      PORT: String(port + 1),
      AGENTCSD_DATA_DIR: other.dataDir,
      AGENTCSD_PERSONAS_DIR: other.personasDir,
      AGENTCSD_ENGINE: 'dbos',
      AGENTCSD_DATABASE_URL: 'postgres://agentcsd:hunter2@127.0.0.1:1/agentcsd',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.output).toContain('> cannot start (store: PostgreSQL on postgres://agentcsd:***@127.0.0.1:1/agentcsd');
    expect(unreachable.output).not.toContain('hunter2');
    expect(fs.existsSync(path.join(other.dataDir, 'agentcsd.lock'))).toBe(false);

    const { session: after } = await api<{ session: { status: string } }>('GET', `/api/sessions/${session.id}`);
    expect(after.status).toBe('active');
    const { messages } = await api<{ messages: { cycle_number: number | null; tag: string }[] }>('GET', `/api/sessions/${session.id}/history?layer=subconscious&limit=500`);
    const cycles = messages.filter((message) => message.tag === 'S_loud').map((message) => message.cycle_number);
    expect(new Set(cycles).size).toBe(cycles.length); // no cycle written twice

    first.child.kill('SIGKILL');
    await first.exited;
    first = await spawnServer({ root, port }); // the dead holder's lock is taken over
    await expect.poll(async () => (await api<{ session: { status: string } }>('GET', `/api/sessions/${session.id}`)).session.status).toBe('active');
  } finally {
    first.child.kill('SIGKILL');
    await first.exited;
  }
});
