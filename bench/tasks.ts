// Tasks, measured (issue 16):
//   overhead — a 50-step task on an instant fake OpenAI-compatible server (each step: a model call
//              that asks for grep with a new pattern, the tool, a model call that reports), through the real
//              orchestrator and task loop (rows, events, the turn, the brief, policies), against
//              the same 50 steps written directly with the openai SDK (two streamed calls and the
//              tool per step, nothing stored). Interleaved, one process; the difference per step
//              is the orchestration a task adds.
//   tokens   — a 10-step task on the fake Anthropic server (which caches prefixes as the API
//              does): prompt tokens per step, the part read from cache, and what the steps would
//              cost at claude-sonnet-5-5's prices with and without the cache.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { estimateCost } from '@/lib/backends/pricing';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { grepTool } from '@/lib/tools/file-tools';
import { ensureWorkspace } from '@/lib/tools/workspace';
import { submitTaskSchema } from '@/lib/store/task-types';
import { startFakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { firstEvent } from './first-event';
import { formatMs, median } from './stats';

export interface TaskOverheadResult {
  steps: number;
  runs: number;
  ours: number[];
  direct: number[];
}

function freshDirs(name: string): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `agentcsd-bench-${name}-`));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  return dataDir;
}

/** Resolves when the task ends; a task that ends before its last step is a broken benchmark. */
async function untilTaskEnds(orchestrator: Orchestrator, taskId: string, steps: number): Promise<void> {
  const task = await firstEvent(orchestrator.bus, (event) => ((event.type === 'task.failed' || event.type === 'task.completed') && event.task.id === taskId ? event.task : undefined));
  if (task.steps !== steps) throw new Error(`the task ended after ${task.steps} of ${steps} steps: ${task.error}`);
}

/** The same steps by hand: per step, a streamed call that asks for the tool, the tool, a streamed call that reports. */
async function directSteps(client: OpenAI, steps: number, workspaceDir: string): Promise<void> {
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'grep', description: grepTool.definition.description, parameters: grepTool.definition.inputSchema } }];
  for (let step = 1; step <= steps; step++) {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'bench' },
      { role: 'user', content: `<task>Goal: look [[forever]]\nProgress: step ${step} of at most ${steps}</task>` },
    ];
    const first = await client.chat.completions.create({ model: 'fake-large', messages, tools, stream: true });
    let id = '';
    for await (const chunk of first) for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) id ||= fragment.id ?? '';
    const args = { pattern: `step-${step}` };
    const outcome = await grepTool.run(args, { sessionId: 'bench', workspaceDir, signal: new AbortController().signal });
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'grep', arguments: JSON.stringify(args) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: outcome.content });
    const second = await client.chat.completions.create({ model: 'fake-large', messages, tools, stream: true });
    for await (const chunk of second) void chunk;
  }
}

export async function benchTaskOverhead(options: { steps: number; runs: number; port?: number }): Promise<TaskOverheadResult> {
  const dataDir = freshDirs('tasks');
  const fake = await startFakeOpenAIServer({ script: taskScript, port: options.port });
  const client = new OpenAI({ apiKey: 'x', baseURL: `${fake.url}/v1`, maxRetries: 0 });
  const workspaceDir = ensureWorkspace('bench-direct', dataDir);
  const orchestrator = new Orchestrator({ taskWorkingDelayMs: 0 });
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  const ours = async () => {
    const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { tools: ['grep'] } });
    await orchestrator.pauseSession(session.id); // the Subconscious rests: the task's turns only
    await orchestrator.resumeSession(session.id);
    const started = performance.now();
    const task = await orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Look around [[forever]]', constraints: { max_steps: options.steps } }));
    await untilTaskEnds(orchestrator, task.id, options.steps);
    const elapsed = performance.now() - started;
    await orchestrator.deleteSession(session.id);
    return elapsed;
  };
  const direct = async () => {
    const started = performance.now();
    await directSteps(client, options.steps, workspaceDir);
    return performance.now() - started;
  };
  const result: TaskOverheadResult = { steps: options.steps, runs: options.runs, ours: [], direct: [] };
  await ours();
  await direct(); // warm-up
  for (let run = 0; run < options.runs; run++) {
    result.ours.push(await ours());
    result.direct.push(await direct());
  }
  await orchestrator.stop();
  await fake.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}

export interface TaskTokensResult {
  steps: { prompt: number; cacheRead: number; cacheWrite: number; output: number }[];
}

export async function benchTaskTokens(options: { steps: number; port?: number }): Promise<TaskTokensResult> {
  const dataDir = freshDirs('task-tokens');
  const fake = await startFakeAnthropicServer({ script: taskScript, port: options.port });
  const orchestrator = new Orchestrator({ taskWorkingDelayMs: 0 });
  await orchestrator.start();
  const layer = { backend: 'anthropic' as const, model: 'claude-sonnet-5-5', max_tokens: 256, endpoint: fake.url, api_key: 'sk-ant-bench' };
  // Every built-in tool, as a session has by default: their definitions are most of the cached prefix.
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: layer } });
  const task = await orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Look around [[forever]]', constraints: { max_steps: options.steps } }));
  await untilTaskEnds(orchestrator, task.id, options.steps);
  const rows = await (await getDb()).llmCall.findMany({ where: { traceId: task.traceId }, orderBy: { id: 'asc' } });
  const steps: TaskTokensResult['steps'] = [];
  for (let index = 0; index + 1 < rows.length; index += 2) {
    const pair = [rows[index]!, rows[index + 1]!];
    steps.push({
      prompt: pair.reduce((sum, row) => sum + row.inputTokens + row.cacheReadTokens + row.cacheWriteTokens, 0),
      cacheRead: pair.reduce((sum, row) => sum + row.cacheReadTokens, 0),
      cacheWrite: pair.reduce((sum, row) => sum + row.cacheWriteTokens, 0),
      output: pair.reduce((sum, row) => sum + row.outputTokens, 0),
    });
  }
  await orchestrator.stop();
  await fake.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { steps };
}

export function tasksTables(input: { overhead: TaskOverheadResult; tokens: TaskTokensResult }): string {
  const { overhead, tokens } = input;
  const perStep = (samples: number[]) => samples.map((total) => total / overhead.steps);
  const added = overhead.ours.map((total, index) => (total - overhead.direct[index]!) / overhead.steps);
  const steady = tokens.steps.slice(1);
  const cost = (step: TaskTokensResult['steps'][number], cached: boolean) =>
    estimateCost('claude-sonnet-5-5', cached ? { inputTokens: step.prompt - step.cacheRead - step.cacheWrite, cacheReadTokens: step.cacheRead, cacheWriteTokens: step.cacheWrite, outputTokens: step.output } : { inputTokens: step.prompt, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: step.output }) as number;
  const withCache = steady.reduce((sum, step) => sum + cost(step, true), 0) / Math.max(1, steady.length);
  const withoutCache = steady.reduce((sum, step) => sum + cost(step, false), 0) / Math.max(1, steady.length);
  return [
    `A ${overhead.steps}-step task (each step: a model call asking for grep, the tool, a model call reporting) on an instant fake, ${overhead.runs} runs per path, interleaved.`,
    '',
    '| path | per step median ms | 50-step task median ms |',
    '|---|---|---|',
    `| ours: the task loop (rows, events, brief, policies, the turn) | ${formatMs(median(perStep(overhead.ours)))} | ${formatMs(median(overhead.ours))} |`,
    `| the same steps with the openai SDK (floor) | ${formatMs(median(perStep(overhead.direct)))} | ${formatMs(median(overhead.direct))} |`,
    '',
    `Added by the task loop: ${formatMs(median(added))} ms per step (median of runs), ${formatMs(median(overhead.ours) - median(overhead.direct))} ms over the whole ${overhead.steps}-step task.`,
    '',
    `Tokens per step on the fake Anthropic server (${tokens.steps.length} steps, two calls each; the first step writes the cache):`,
    '',
    '| step | prompt tokens | read from cache | written to cache | output |',
    '|---|---|---|---|---|',
    ...tokens.steps.map((step, index) => `| ${index + 1} | ${step.prompt.toLocaleString('en-US')} | ${step.cacheRead.toLocaleString('en-US')} | ${step.cacheWrite.toLocaleString('en-US')} | ${step.output} |`),
    '',
    `From step 2 on, ${(100 * steady.reduce((sum, step) => sum + step.cacheRead, 0) / Math.max(1, steady.reduce((sum, step) => sum + step.prompt, 0))).toFixed(0)}% of prompt tokens are read from cache: a step costs $${withCache.toFixed(5)} with the cache and would cost $${withoutCache.toFixed(5)} without it at claude-sonnet-5-5 prices (${(withoutCache / withCache).toFixed(2)}×).`,
  ].join('\n');
}
