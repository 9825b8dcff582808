// Tool search, measured (issue 30): the real mind and Anthropic adapter against the fake Messages
// API (whose cache follows the documented prefix rules), with an MCP server of 10 or 200 tools
// (test/fakes/many-tools-mcp-server.ts, the SDK over stdio). Per configuration, twelve messages in
// a row: the Internal Dialog's prompt tokens per turn (sent + cached), the share read from the
// cache over turns 2–12, and the first token's latency (send → first reply delta), medians.
import path from 'node:path';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { closeDb } from '../lib/store/db';
import { writeMcpSettings } from '../lib/store/settings-repository';
import { startFakeAnthropicServer } from '../test/fakes/fake-anthropic-server';
import type { FakeRequest } from '../test/fakes/fake-server-core';
import { useScratchDirs } from './mind';
import { median } from './stats';

export interface ToolSearchRow {
  label: string;
  tools: number;
  search: boolean;
  definitions: number;
  promptTokens: number;
  cacheReadShare: number;
  firstTokenMs: number;
}

/** The fake's replies; the Internal Dialog's requests say how many tool definitions they carried. */
const scriptCounting = (sent: number[]) => (request: FakeRequest) => {
  if (request.system.includes('You are the Subconscious')) return { text: '<S_loud></S_loud><S_quiet>Listening.</S_quiet><M_AND_C><mood>calm</mood><criteria>Be brief.</criteria></M_AND_C><trigger>false</trigger>' };
  sent.push((request.body as { tools?: unknown[] }).tools?.length ?? 0);
  return { text: '<ID_loud>Noted — tell me more.</ID_loud><ID_quiet>Short answer.</ID_quiet>' };
};

async function runOne(label: string, tools: number, budget: number): Promise<ToolSearchRow> {
  const cleanup = useScratchDirs();
  process.env.AGENTCSD_TOOL_SEARCH_TOKENS = String(budget);
  const sent: number[] = [];
  const fake = await startFakeAnthropicServer({ script: scriptCounting(sent), requestLogLimit: 2 });
  const orchestrator = new Orchestrator();
  const turns: { prompt: number; read: number }[] = [];
  const firstTokens: number[] = [];
  let sentAt = 0;
  let waitingFirst = false;
  orchestrator.bus.subscribe((event) => {
    if (event.type === 'reply-delta' && waitingFirst) {
      firstTokens.push(performance.now() - sentAt);
      waitingFirst = false;
    }
    if (event.type === 'usage' && event.layer === 'internal') {
      const call = event.call;
      turns.push({ prompt: call.inputTokens + call.cacheReadTokens + call.cacheWriteTokens, read: call.cacheReadTokens });
    }
  });
  try {
    await writeMcpSettings({ mcpServers: { many: { command: process.execPath, args: ['--import', 'tsx', path.resolve('test/fakes/many-tools-mcp-server.ts'), String(tools)], env: {} } }, tools: {}, disabled: [] });
    await orchestrator.start();
    await orchestrator.mcp.settled();
    const layer = { backend: 'anthropic' as const, model: 'claude-sonnet-5-5', max_tokens: 1024, endpoint: fake.url, api_key: 'bench' };
    const session = await orchestrator.createSession({ persona: 'bench', models: { c_model: layer, s_model: { ...layer, model: 'claude-haiku-5-5' } }, params: { pacing: 'adaptive' } });
    for (let index = 0; index < 12; index++) {
      const before = turns.length;
      sentAt = performance.now();
      waitingFirst = true;
      await orchestrator.sendUserMessage(session.id, { text: `Message ${index + 1}: how should I plan the week around the release?` });
      while (turns.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await orchestrator.stop();
    await closeDb();
    await fake.close();
    cleanup();
    delete process.env.AGENTCSD_TOOL_SEARCH_TOKENS;
  }
  const later = turns.slice(1);
  return {
    label,
    tools,
    search: budget > 0,
    definitions: sent.at(-1) ?? 0,
    promptTokens: median(turns.map((turn) => turn.prompt)),
    cacheReadShare: later.reduce((sum, turn) => sum + turn.read, 0) / Math.max(1, later.reduce((sum, turn) => sum + turn.prompt, 0)),
    firstTokenMs: median(firstTokens),
  };
}

export async function benchToolSearch(): Promise<ToolSearchRow[]> {
  const rows: ToolSearchRow[] = [];
  await runOne('warm-up (not shown)', 10, 0); // the first run pays for module loading and JIT
  // Side by side in one run, so the machine's noise falls on all alike.
  rows.push(await runOne('10 tools, search off', 10, 0));
  rows.push(await runOne('200 tools, search off', 200, 0));
  rows.push(await runOne('200 tools, search on (8,000)', 200, 8_000));
  rows.push(await runOne('10 tools, search on (8,000)', 10, 8_000));
  return rows;
}

export function toolSearchTable(rows: ToolSearchRow[]): string {
  return [
    '| configuration | tool definitions sent | prompt tokens per turn (median) | cache-read share, turns 2–12 | first token (median) |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.label} | ${row.definitions} | ${row.promptTokens.toLocaleString('en')} | ${(row.cacheReadShare * 100).toFixed(1)}% | ${row.firstTokenMs.toFixed(1)} ms |`),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve('bench/tool-search.ts')) {
  console.log(toolSearchTable(await benchToolSearch()));
}
