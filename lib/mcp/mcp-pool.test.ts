// The MCP client against the reference servers from npm (server-everything over stdio and
// Streamable HTTP, server-filesystem over stdio): tools mapped and run, a minimal environment,
// progress that keeps a long call alive, Stop, a crash answered at once and a restart with
// backoff, caps, and no process left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '@/lib/config/mcp-config';
import type { Tool, ToolRunContext } from '@/lib/tools/tool-types';
import { emptyMcpSettings, mcpToolName, type McpSettings } from '@/lib/config/mcp-config';
import { McpPool } from './mcp-pool';

const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const filesystem = path.resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

function settings(servers: McpSettings['mcpServers'], extra: Partial<McpSettings> = {}): McpSettings {
  return { ...emptyMcpSettings, mcpServers: servers, ...extra };
}

function tool(pool: McpPool, name: string): Tool<Record<string, unknown>> {
  const found = pool.tools().find((candidate) => candidate.definition.name === name);
  if (!found) throw new Error(`no tool ${name} among ${pool.tools().map((candidate) => candidate.definition.name).join(', ')}`);
  return found as Tool<Record<string, unknown>>;
}

function context(overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  return { sessionId: 's', workspaceDir: os.tmpdir(), signal: new AbortController().signal, ...overrides };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address() as net.AddressInfo;
      probe.close(() => resolve(address.port));
    });
  });
}

const pools: McpPool[] = [];
function newPool(options: ConstructorParameters<typeof McpPool>[0] = {}): McpPool {
  const pool = new McpPool(options);
  pools.push(pool);
  return pool;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.stop()));
});

describe('stdio: server-everything', () => {
  it('lists its tools as server__tool in a fixed order, with approval from its annotations', async () => {
    const pool = newPool();
    await pool.configure(settings({ everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } }));
    await pool.settled();
    const [status] = pool.status();
    expect(status).toMatchObject({ name: 'everything', transport: 'stdio', state: 'ready', last_error: null });
    expect(status!.tool_count).toBeGreaterThan(5);
    expect(status!.definition_tokens).toBeGreaterThan(100);
    const names = pool.tools().map((candidate) => candidate.definition.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(names).toContain('everything__echo');
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    // echo is marked read-only: no card; a tool without that mark asks.
    expect(tool(pool, 'everything__echo').approval).toBe('never');
    expect(tool(pool, 'everything__toggle-simulated-logging').approval).toBe('required');
    expect(tool(pool, 'everything__echo').source).toEqual({ mcpServer: 'everything' });

    const outcome = await tool(pool, 'everything__echo').run({ message: 'hello there' }, context());
    expect(outcome).toMatchObject({ isError: false });
    expect(outcome.content).toContain('hello there');

    // Test reconnects a working server: a new process, and calls work on it.
    const pid = status!.pid;
    const tested = await pool.test('everything');
    expect(tested).toMatchObject({ ok: true, error: null });
    expect(tested.tools.map((entry) => entry.name)).toContain('echo');
    expect(pool.status()[0]!.pid).not.toBe(pid);
    expect((await tool(pool, 'everything__echo').run({ message: 'again' }, context())).content).toContain('again');
  });

  it('the user decides per tool: off, or auto-approved, over the annotation', async () => {
    const pool = newPool();
    const servers = { everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } };
    await pool.configure(settings(servers, { tools: { everything: { echo: { auto_approve: false }, 'get-sum': { enabled: false }, 'toggle-simulated-logging': { auto_approve: true } } } }));
    await pool.settled();
    const pid = pool.status()[0]!.pid;
    expect(tool(pool, 'everything__echo').approval).toBe('required');
    expect(tool(pool, 'everything__toggle-simulated-logging').approval).toBe('never');
    expect(pool.tools().map((candidate) => candidate.definition.name)).not.toContain('everything__get-sum');
    expect(pool.status()[0]!.tools.find((entry) => entry.name === 'get-sum')).toMatchObject({ enabled: false, model_name: 'everything__get-sum' });
    // Changing only the per-tool choices keeps the same process.
    await pool.configure(settings(servers));
    expect(pool.status()[0]!.pid).toBe(pid);
    expect(tool(pool, 'everything__echo').approval).toBe('never');
  });

  it('runs with a minimal environment: its own variables, never the app keys', async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = 'sk-ant-canary-0123456789';
    process.env.OPENAI_API_KEY = 'sk-openai-canary';
    process.env.AGENTCSD_ACCESS_TOKEN = 'token-canary-0123456789abcdef0123456789';
    try {
      const pool = newPool();
      await pool.configure(settings({ everything: { command: process.execPath, args: [everything, 'stdio'], env: { SERVER_OWN: 'own-value' } } }));
      await pool.settled();
      const outcome = await tool(pool, 'everything__get-env').run({}, context());
      const env = JSON.parse(outcome.content) as Record<string, string>;
      expect(env.SERVER_OWN).toBe('own-value');
      expect(env.PATH).toBe(process.env.PATH);
      expect(outcome.content).not.toContain('canary');
      expect(Object.keys(env).filter((key) => /KEY|TOKEN|SECRET/i.test(key))).toEqual([]);
    } finally {
      process.env = saved;
    }
  });

  it('progress keeps a long call alive past the timeout; without progress it times out', async () => {
    const pool = newPool({ callTimeoutMs: 1_500 });
    await pool.configure(settings({ everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } }));
    await pool.settled();
    const long = tool(pool, 'everything__trigger-long-running-operation');
    const lines: string[] = [];
    const kept = await long.run({ duration: 3, steps: 6 }, context({ onOutput: (chunk) => lines.push(chunk.text) }));
    expect(kept.isError).toBe(false);
    expect(kept.content).toContain('Long running operation completed');
    // The last notification may land after the result (the client then drops it).
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines[0]).toBe('progress 1/6\n');

    const silent = await long.run({ duration: 3, steps: 1 }, context());
    expect(silent).toMatchObject({ isError: true, timedOut: true });
    expect(silent.content).toContain('did not answer');
  });

  it('Stop cancels a running call at once', async () => {
    const pool = newPool();
    await pool.configure(settings({ everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } }));
    await pool.settled();
    const controller = new AbortController();
    const running = tool(pool, 'everything__trigger-long-running-operation').run({ duration: 30, steps: 30 }, context({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 300);
    // The operation takes 30 s: a cancelled outcome is one Stop ended, not one that ran out
    // (how long Stop takes is measured in bench/stop-times.ts).
    const outcome = await running;
    expect(outcome).toMatchObject({ isError: true, cancelled: true });
    // The server is still there for the next call.
    expect((await tool(pool, 'everything__echo').run({ message: 'after' }, context())).content).toContain('after');
  });

  it('a crashed server: calls are error results at once, it restarts with backoff, and stop leaves no process', async () => {
    const pool = newPool({ backoffMs: [300, 600] });
    await pool.configure(settings({ everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } }));
    await pool.settled();
    const echo = tool(pool, 'everything__echo');
    const firstPid = pool.status()[0]!.pid!;
    process.kill(-firstPid, 'SIGKILL');
    await until(() => pool.status()[0]!.state === 'failed', 'the crash to be seen');
    // Answered from the pool's state, not by waiting for the restart: an error that says so, while
    // the server is still down (bench/stop-times.ts measures how soon).
    const outcome = await echo.run({ message: 'anyone?' }, context());
    expect(pool.status()[0]!.state).not.toBe('ready');
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/MCP server "everything" is not running \(retrying in \d+ s\)/);
    expect(pool.status()[0]!.last_error).toMatch(/SIGKILL|closed/);

    await until(() => pool.status()[0]!.state === 'ready', 'the restart');
    const status = pool.status()[0]!;
    expect(status.restarts).toBe(1);
    expect(status.pid).not.toBe(firstPid);
    expect((await tool(pool, 'everything__echo').run({ message: 'back' }, context())).content).toContain('back');

    await pool.stop();
    await until(() => !alive(status.pid!), 'the server to exit');
    expect(pool.tools()).toEqual([]);
  });

  it('caps a long result with a marker', async () => {
    const pool = newPool({ resultCapChars: 40 });
    await pool.configure(settings({ everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } }));
    await pool.settled();
    const outcome = await tool(pool, 'everything__echo').run({ message: 'x'.repeat(500) }, context());
    expect(outcome.content.length).toBeLessThan(200);
    expect(outcome.content).toMatch(/\[… \d+ more characters cut: the result was longer than 40 …\]$/);
    expect(outcome.droppedBytes).toBeGreaterThan(400);
  });

  it('a command that does not exist: failed with the reason, and calls get it', async () => {
    const pool = newPool({ backoffMs: [60_000] });
    await pool.configure(settings({ ghost: { command: '/nonexistent/mcp-server', args: [], env: {} } }));
    await pool.settled();
    const [status] = pool.status();
    expect(status).toMatchObject({ state: 'failed', tool_count: 0 });
    expect(status!.last_error).toMatch(/ENOENT/);
    expect(pool.tools()).toEqual([]);
    expect(await pool.test('ghost')).toMatchObject({ ok: false, error: expect.stringMatching(/ENOENT/) });
    expect(await pool.test('missing')).toMatchObject({ ok: false, error: 'missing is not configured' });
  });
});

describe('stdio: server-filesystem', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-mcp-fs-')));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'first line\nsecond line\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads and lists inside its allowed folder and refuses outside it, under a name with spaces', async () => {
    const pool = newPool();
    await pool.configure(settings({ 'my files': { command: process.execPath, args: [filesystem, dir], env: {} } }));
    await pool.settled();
    expect(pool.status()[0]).toMatchObject({ state: 'ready' });
    const readName = mcpToolName('my files', 'read_text_file');
    expect(readName).toMatch(/^my_files__read_text_file_[0-9a-f]{6}$/);
    const read = tool(pool, readName);
    expect(read.approval).toBe('never'); // marked read-only by the server
    expect(tool(pool, mcpToolName('my files', 'write_file')).approval).toBe('required');
    expect((await read.run({ path: path.join(dir, 'notes.txt') }, context())).content).toContain('second line');
    const listed = await tool(pool, mcpToolName('my files', 'list_directory')).run({ path: dir }, context());
    expect(listed.content).toContain('notes.txt');
    const outside = await read.run({ path: '/etc/passwd' }, context());
    expect(outside.isError).toBe(true);
    expect(outside.content).toMatch(/denied|outside/i);
  });
});

describe('Streamable HTTP: server-everything', () => {
  let server: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = spawn(process.execPath, [everything, 'streamableHttp'], { env: { PATH: process.env.PATH, PORT: String(port) } as unknown as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      server.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening')) resolve();
      });
      server.once('exit', () => reject(new Error(`server-everything exited: ${output}`)));
    });
  });
  afterAll(() => {
    server.kill('SIGKILL');
  });

  it('connects by URL with headers and calls a tool', async () => {
    const pool = newPool();
    await pool.configure(settings({ remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Demo': 'yes' } } }));
    await pool.settled();
    expect(pool.status()[0]).toMatchObject({ transport: 'http', state: 'ready', pid: null });
    const outcome = await tool(pool, 'remote__echo').run({ message: 'over http' }, context());
    expect(outcome.content).toContain('over http');
  });

  it('a URL nobody answers: failed with the reason', async () => {
    const pool = newPool({ backoffMs: [60_000] });
    await pool.configure(settings({ nobody: { type: 'http', url: `http://127.0.0.1:${await freePort()}/mcp`, headers: {} } }));
    await pool.settled();
    expect(pool.status()[0]).toMatchObject({ state: 'failed' });
    expect(pool.status()[0]!.last_error).toMatch(/could not start: .*ECONNREFUSED/);
  });
});
