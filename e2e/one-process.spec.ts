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

test('a second server on the same data folder refuses to start; the first keeps its sessions; after a kill -9 the folder is taken over', async () => {
  test.setTimeout(120_000);
  const root = 'test-results/e2e-one-process';
  let first = await spawnServer({ root, port });
  try {
    const { session } = await api<{ session: { id: string } }>('POST', '/api/sessions', { persona: 'iris', name: 'One owner', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });

    const { dataDir, personasDir } = serverFolders(root);
    const second = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port + 1), HOST: '127.0.0.1', AGENTCSD_DATA_DIR: dataDir, AGENTCSD_PERSONAS_DIR: personasDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    second.stdout!.on('data', (chunk) => (output += chunk));
    second.stderr!.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain(`${path.resolve(dataDir)} is in use by another AgentCSD process (pid ${first.child.pid}, port ${port}`);
    expect(output).not.toContain('AgentCSD ready');

    // Another folder on the same port: it says so and leaves.
    const other = serverFolders(`${root}-other`);
    const taken = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', AGENTCSD_DATA_DIR: other.dataDir, AGENTCSD_PERSONAS_DIR: other.personasDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let takenOutput = '';
    taken.stdout!.on('data', (chunk) => (takenOutput += chunk));
    taken.stderr!.on('data', (chunk) => (takenOutput += chunk));
    expect(await new Promise<number | null>((resolve) => taken.on('exit', resolve))).toBe(1);
    expect(takenOutput).toContain(`> port ${port} on 127.0.0.1 is in use`);

    // The durable engine's database unreachable: one clear line, the password masked, nothing held.
    const unreachable = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port + 1), HOST: '127.0.0.1', AGENTCSD_DATA_DIR: other.dataDir, AGENTCSD_PERSONAS_DIR: other.personasDir, AGENTCSD_ENGINE: 'dbos', AGENTCSD_DATABASE_URL: 'postgres://agentcsd:hunter2@127.0.0.1:1/agentcsd' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let unreachableOutput = '';
    unreachable.stdout!.on('data', (chunk) => (unreachableOutput += chunk));
    unreachable.stderr!.on('data', (chunk) => (unreachableOutput += chunk));
    expect(await new Promise<number | null>((resolve) => unreachable.on('exit', resolve))).toBe(1);
    expect(unreachableOutput).toContain('> cannot start (engine: DBOS on postgres://agentcsd:***@127.0.0.1:1/agentcsd');
    expect(unreachableOutput).not.toContain('hunter2');
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
