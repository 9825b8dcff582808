// `npm run bench:stops`: how soon things stop (issue 66 §3 — the durations the tests no longer
// assert): Stop on a running MCP call (server-everything's 30-second operation), the answer a
// call gets from an MCP server that just crashed, and an abort of a Claude Code CLI reply (the
// real binary against the fake Anthropic server) until its process group is gone. Rounds in this
// process, medians and the slowest.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClaudeCodeCliBackend } from '../lib/backends/claude-code-cli-backend';
import { emptyMcpSettings } from '../lib/config/mcp-config';
import { McpPool } from '../lib/mcp/mcp-pool';
import type { Tool, ToolRunContext } from '../lib/tools/tool-types';
import { startFakeAnthropicServer } from '../test/fakes/fake-anthropic-server';
import { formatMs, median } from './stats';

const rounds = process.argv.includes('--quick') ? 3 : 10;
const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const context = (signal = new AbortController().signal): ToolRunContext => ({ sessionId: 'bench', workspaceDir: os.tmpdir(), signal });
const toolOf = (pool: McpPool, name: string) => pool.tools().find((tool) => tool.definition.name === name) as Tool<Record<string, unknown>>;

async function until(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 20_000; !check(); ) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function readyPool(): Promise<McpPool> {
  const pool = new McpPool({ backoffMs: [300, 600] });
  await pool.configure({ ...emptyMcpSettings, mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], env: {} } } });
  await pool.settled();
  return pool;
}

/** Stop on a running MCP call: from the abort to its cancelled outcome. */
async function mcpStop(): Promise<number[]> {
  const pool = await readyPool();
  const samples: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const controller = new AbortController();
      const running = toolOf(pool, 'everything__trigger-long-running-operation').run({ duration: 30, steps: 30 }, context(controller.signal));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stopped = performance.now();
      controller.abort();
      const outcome = await running;
      if (!outcome.cancelled) throw new Error('the call was not cancelled');
      samples.push(performance.now() - stopped);
    }
  } finally {
    await pool.stop();
  }
  return samples;
}

/** A call to a server that just crashed: from the call to its error result. */
async function mcpCrashAnswer(): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const pool = await readyPool();
    try {
      const echo = toolOf(pool, 'everything__echo'); // held by a turn that began before the crash
      process.kill(-pool.status()[0]!.pid!, 'SIGKILL');
      await until(() => pool.status()[0]!.state === 'failed');
      const asked = performance.now();
      const outcome = await echo.run({ message: 'anyone?' }, context());
      if (!outcome.isError) throw new Error('a crashed server answered');
      samples.push(performance.now() - asked);
    } finally {
      await pool.stop();
    }
  }
  return samples;
}

/** An aborted CLI reply: from the abort to the stream's end with the process group gone. */
async function cliAbort(): Promise<number[]> {
  const fake = await startFakeAnthropicServer({ script: () => ({ text: 'a slow reply that streams for a while '.repeat(4) }) });
  fake.chunkDelayMs = 100;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-stop-'));
  const samples: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const backend = new ClaudeCodeCliBackend({ cliPath: path.resolve('node_modules/.bin/claude'), env: { HOME: fs.mkdtempSync(path.join(scratch, 'home-')), ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'dummy-key' } });
      const controller = new AbortController();
      let parts = 0;
      let aborted = 0;
      const request = { system: [{ text: 'You are the Internal Dialog.' }], messages: [{ role: 'user' as const, content: 'slow' }], model: 'claude-haiku-4-5', maxTokens: 128 };
      for await (const part of backend.stream(request, controller.signal)) {
        if (part.type === 'error') throw part.error;
        if (++parts === 2) {
          aborted = performance.now();
          controller.abort();
        }
      }
      samples.push(performance.now() - aborted);
    }
  } finally {
    await fake.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return samples;
}

const rows: [string, number[]][] = [
  ['Stop on a running MCP call → cancelled outcome', await mcpStop()],
  ['a call to a crashed MCP server → its error result', await mcpCrashAnswer()],
  ['abort of a Claude Code CLI reply → stream ended, process group gone', await cliAbort()],
];
console.log(`| what | median ms | slowest ms | rounds |\n|---|---|---|---|`);
for (const [what, samples] of rows) console.log(`| ${what} | ${formatMs(median(samples))} | ${formatMs(Math.max(...samples))} | ${samples.length} |`);
process.exit(0);
