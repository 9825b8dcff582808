// Tools, measured (issue 15):
//   steps    — a turn of N tool steps on an instant fake OpenAI-compatible server, three ways, one
//              run, interleaved: ours (the real orchestrator: steps and calls committed to SQLite,
//              decided, run, events), the same loop written directly with the openai SDK, and the
//              Vercel AI SDK's tool loop (`streamText` with tools and `stopWhen`). The tool is the
//              same `list_files` in all three, so the difference is orchestration.
//   sandbox  — a sandboxed `true` against a bare `bash -c true`.
//   decision — from a person's decision (the orchestrator's decideToolCall) to the call running.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { ownerActor } from '@/lib/people/rights';
import { closeDb } from '@/lib/store/db';
import { runSandboxed } from '@/lib/tools/sandbox';
import { listFilesTool } from '@/lib/tools/file-tools';
import { ensureWorkspace } from '@/lib/tools/workspace';
import { mindScript } from '@/test/fakes/mind-script';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import type { FakeRequest } from '@/test/fakes/fake-server-core';
import { firstEvent } from './first-event';
import { formatMs, median, percentile } from './stats';

interface StepsResult {
  steps: number;
  turns: number;
  perStep: Record<'ours' | 'direct' | 'aiSdk', number[]>;
}

const toolResultCount = (request: FakeRequest) => {
  const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
  return messages.filter((message) => message.role === 'tool').length;
};

/** N steps of one list_files call each, then a final answer; the Subconscious gets the scripted mind. */
function stepsScript(steps: number) {
  return (request: FakeRequest) => {
    if (request.system.includes('You are the Subconscious')) return mindScript(request);
    if (toolResultCount(request) < steps) return { text: '', toolCalls: [{ name: 'list_files', input: {} }] };
    return { text: '<ID_loud>Done.</ID_loud>' };
  };
}

async function directLoop(client: OpenAI, workspaceDir: string): Promise<void> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'bench' }, { role: 'user', content: 'go' }];
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'list_files', description: listFilesTool.definition.description, parameters: listFilesTool.definition.inputSchema } }];
  for (;;) {
    const stream = await client.chat.completions.create({ model: 'fake-large', messages, tools, stream: true });
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    for await (const chunk of stream) {
      for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
        const call = calls.get(fragment.index) ?? { id: fragment.id ?? '', name: '', arguments: '' };
        if (fragment.function?.name) call.name = fragment.function.name;
        call.arguments += fragment.function?.arguments ?? '';
        calls.set(fragment.index, call);
      }
    }
    if (calls.size === 0) return;
    const list = [...calls.values()];
    messages.push({ role: 'assistant', content: null, tool_calls: list.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) });
    for (const call of list) {
      const outcome = await listFilesTool.run(JSON.parse(call.arguments || '{}'), { sessionId: 'bench', workspaceDir, signal: new AbortController().signal });
      messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
    }
  }
}

async function aiSdkLoop(baseURL: string, steps: number, workspaceDir: string): Promise<void> {
  const provider = createOpenAICompatible({ name: 'fake', baseURL, includeUsage: true });
  const result = streamText({
    model: provider.chatModel('fake-large'),
    system: 'bench',
    prompt: 'go',
    maxRetries: 0,
    stopWhen: stepCountIs(steps + 1),
    tools: {
      list_files: tool({
        description: listFilesTool.definition.description,
        inputSchema: jsonSchema<Record<string, never>>(listFilesTool.definition.inputSchema as never),
        execute: async (input) => (await listFilesTool.run(input as never, { sessionId: 'bench', workspaceDir, signal: new AbortController().signal })).content,
      }),
    },
  });
  await result.consumeStream();
  await result.steps;
}

export async function benchToolSteps(options: { steps: number; turns: number; port?: number }): Promise<StepsResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-tools-'));
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  const fake = await startFakeOpenAIServer({ script: stepsScript(options.steps), port: options.port });
  const endpoint = `${fake.url}/v1`;
  const workspaceDir = ensureWorkspace('bench-direct', dataDir);
  fs.writeFileSync(path.join(workspaceDir, 'a.txt'), 'a');
  const client = new OpenAI({ apiKey: 'x', baseURL: endpoint, maxRetries: 0 });
  const orchestrator = new Orchestrator();
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { tools: ['list_files'] } });
  fs.writeFileSync(path.join(ensureWorkspace(session.id, dataDir), 'a.txt'), 'a');

  const ours = async () => {
    const ended = firstEvent(orchestrator.bus, (event) => (event.type === 'turn-end' && event.sessionId === session.id ? true : undefined));
    await orchestrator.sendUserMessage(session.id, { text: 'go' });
    await ended;
  };
  const perStep: StepsResult['perStep'] = { ours: [], direct: [], aiSdk: [] };
  const time = async (run: () => Promise<void>) => {
    const started = performance.now();
    await run();
    return (performance.now() - started) / options.steps;
  };
  const runs = { ours, direct: () => directLoop(client, workspaceDir), aiSdk: () => aiSdkLoop(endpoint, options.steps, workspaceDir) };
  for (let warm = 0; warm < 3; warm++) for (const run of Object.values(runs)) await run();
  for (let turn = 0; turn < options.turns; turn++) {
    for (const [name, run] of Object.entries(runs) as [keyof typeof runs, () => Promise<void>][]) perStep[name].push(await time(run));
  }
  await orchestrator.stop();
  await fake.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { steps: options.steps, turns: options.turns, perStep };
}

export async function benchSandboxStart(options: { samples: number }): Promise<{ sandboxed: number[]; bare: number[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-sandbox-'));
  fs.chmodSync(dir, 0o755);
  const workspace = ensureWorkspace('bench', dir);
  const bare = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-c', 'true'], { stdio: 'ignore' });
      child.once('error', reject);
      child.once('close', () => resolve());
    });
  const sandboxed = async () => {
    const result = await runSandboxed({ workspaceDir: workspace, argv: ['bash', '-c', 'true'], timeoutMs: 10_000, outputCapBytes: 1024, signal: new AbortController().signal });
    if (result.exitCode !== 0) throw new Error(`sandboxed true failed: ${result.stderr}`);
  };
  const samples = { sandboxed: [] as number[], bare: [] as number[] };
  for (let warm = 0; warm < 3; warm++) {
    await bare();
    await sandboxed();
  }
  for (let index = 0; index < options.samples; index++) {
    for (const [name, run] of [['bare', bare], ['sandboxed', sandboxed]] as const) {
      const started = performance.now();
      await run();
      samples[name].push(performance.now() - started);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return samples;
}

/** From decideToolCall to the call's `running` event (bash `true`, gated). */
export async function benchDecisionToStart(options: { samples: number; port?: number }): Promise<number[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-decision-'));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  const fake = await startFakeOpenAIServer({
    port: options.port,
    script: (request) => {
      if (request.system.includes('You are the Subconscious')) return mindScript(request);
      return toolResultCount(request) === 0 ? { text: '', toolCalls: [{ name: 'bash', input: { command: 'true' } }] } : { text: '<ID_loud>ok</ID_loud>' };
    },
  });
  const orchestrator = new Orchestrator();
  const owner = await ownerActor();
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { tools: ['bash'] } });
  const samples: number[] = [];
  for (let index = 0; index < options.samples + 3; index++) {
    const card = firstEvent(orchestrator.bus, (event) => (event.type === 'tool-call' && event.sessionId === session.id && event.call.status === 'awaiting_approval' ? event.call.id : undefined));
    const ended = firstEvent(orchestrator.bus, (event) => (event.type === 'turn-end' && event.sessionId === session.id ? true : undefined));
    await orchestrator.sendUserMessage(session.id, { text: 'go' });
    const id = await card;
    const running = firstEvent(orchestrator.bus, (event) => (event.type === 'tool-call' && event.call.id === id && event.call.status === 'running' ? performance.now() : undefined));
    const decided = performance.now();
    await orchestrator.decideToolCall({ id, decision: 'approve' }, owner);
    const started = await running;
    if (index >= 3) samples.push(started - decided);
    await ended;
  }
  await orchestrator.stop();
  await fake.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return samples;
}

export function toolsTables(input: { steps: StepsResult; sandbox: { sandboxed: number[]; bare: number[] }; decision: number[] }): string {
  const { perStep } = input.steps;
  const direct = median(perStep.direct);
  const rows = [
    ['ours: the orchestrator (SQLite commits, decisions, events)', perStep.ours],
    ['direct loop with the openai SDK (floor)', perStep.direct],
    ['Vercel AI SDK tool loop (streamText + stopWhen)', perStep.aiSdk],
  ] as const;
  const lines = [
    `Turns of ${input.steps.steps} tool steps (one list_files call each) on an instant fake, ${input.steps.turns} turns per path, interleaved.`,
    '',
    '| path | per step median ms | per step p90 ms | added vs direct (median) ms |',
    '|---|---|---|---|',
    ...rows.map(([label, samples]) => `| ${label} | ${formatMs(median(samples))} | ${formatMs(percentile(samples, 90))} | ${formatMs(median(samples) - direct)} |`),
    '',
    `Ours against the AI SDK: ${(median(perStep.ours) / median(perStep.aiSdk)).toFixed(3)}× per step (median).`,
    '',
    '| sandbox start | samples | median ms | p90 ms |',
    '|---|---|---|---|',
    `| bare \`bash -c true\` | ${input.sandbox.bare.length} | ${formatMs(median(input.sandbox.bare))} | ${formatMs(percentile(input.sandbox.bare, 90))} |`,
    `| sandboxed \`bash -c true\` (prlimit, setpriv when root, bwrap) | ${input.sandbox.sandboxed.length} | ${formatMs(median(input.sandbox.sandboxed))} | ${formatMs(percentile(input.sandbox.sandboxed, 90))} |`,
    '',
    `Added by the sandbox: ${formatMs(median(input.sandbox.sandboxed) - median(input.sandbox.bare))} ms (median).`,
    '',
    `Decision → tool running: median ${formatMs(median(input.decision))} ms, p90 ${formatMs(percentile(input.decision, 90))} ms (${input.decision.length} decisions).`,
  ];
  return lines.join('\n');
}
