// Time to the first text delta through each adapter versus a direct call with the official SDK to
// the same fake server, interleaved sample by sample so the machine's speed cancels out; and the
// Claude Code CLI's per-call overhead over the API adapter against the same fake.
import { defaultModelIds } from '@/lib/config/model-catalog';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicBackend } from '../lib/backends/anthropic-backend';
import { ClaudeCodeCliBackend, type WarmCli } from '../lib/backends/claude-code-cli-backend';
import { CliWarmPool } from '../lib/backends/cli-warm-pool';
import type { BackendRequest, ModelBackend } from '../lib/backends/model-backend';
import { OpenAICompatibleBackend } from '../lib/backends/openai-compatible-backend';
import { startFakeAnthropicServer } from '../test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server';
import { formatMs, median, percentile } from './stats';

const request: BackendRequest = {
  system: [{ text: 'You are a benchmark.', cache: true }],
  messages: [{ role: 'user', content: 'Say something.' }],
  model: defaultModelIds.anthropic!.s_model,
  maxTokens: 64,
};

async function adapterFirstToken(backend: ModelBackend): Promise<number> {
  const started = performance.now();
  let first = Number.NaN;
  for await (const part of backend.stream(request, new AbortController().signal)) {
    if (part.type === 'text-delta' && Number.isNaN(first)) first = performance.now() - started;
    if (part.type === 'error') throw part.error;
  }
  return first;
}

export interface Row {
  what: string;
  samples: number;
  candidate: number[];
  baseline: number[];
}

export async function benchBackends(options: { samples: number; cliSamples: number }): Promise<Row[]> {
  const anthropicFake = await startFakeAnthropicServer({ script: () => ({ text: 'Twenty words of fake text stream out in small deltas, as a real model would do it.' }) });
  const openaiFake = await startFakeOpenAIServer({ script: () => ({ text: 'Twenty words of fake text stream out in small deltas, as a real model would do it.' }) });
  const rows: Row[] = [];
  try {
    const anthropicSdk = new Anthropic({ apiKey: 'bench', baseURL: anthropicFake.url, maxRetries: 0 });
    const anthropicDirect = async () => {
      const started = performance.now();
      let first = Number.NaN;
      const stream = await anthropicSdk.messages.create({ model: request.model, max_tokens: 64, system: [{ type: 'text', text: 'You are a benchmark.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'Say something.' }], stream: true });
      for await (const event of stream) if (event.type === 'content_block_delta' && Number.isNaN(first)) first = performance.now() - started;
      return first;
    };
    const openaiSdk = new OpenAI({ apiKey: 'bench', baseURL: `${openaiFake.url}/v1`, maxRetries: 0 });
    const openaiDirect = async () => {
      const started = performance.now();
      let first = Number.NaN;
      const stream = await openaiSdk.chat.completions.create({ model: 'fake', max_tokens: 64, messages: [{ role: 'system', content: 'You are a benchmark.' }, { role: 'user', content: 'Say something.' }], stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content && Number.isNaN(first)) first = performance.now() - started;
      return first;
    };
    const anthropicAdapter = new AnthropicBackend({ apiKey: 'bench', baseURL: anthropicFake.url });
    const openaiAdapter = new OpenAICompatibleBackend({ endpoint: openaiFake.url });

    const pairs: [string, () => Promise<number>, () => Promise<number>][] = [
      ['anthropic adapter vs direct @anthropic-ai/sdk', () => adapterFirstToken(anthropicAdapter), anthropicDirect],
      ['openai_compatible adapter vs direct openai SDK', () => adapterFirstToken(openaiAdapter), openaiDirect],
    ];
    for (const [what, candidate, baseline] of pairs) {
      for (let warm = 0; warm < 20; warm++) {
        await candidate();
        await baseline();
      }
      const row: Row = { what, samples: options.samples, candidate: [], baseline: [] };
      for (let index = 0; index < options.samples; index++) {
        // Alternate which goes first so neither always runs on a warmer machine.
        if (index % 2) {
          row.candidate.push(await candidate());
          row.baseline.push(await baseline());
        } else {
          row.baseline.push(await baseline());
          row.candidate.push(await candidate());
        }
      }
      rows.push(row);
    }

    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-cli-'));
    const cliEnv = { HOME: home, ANTHROPIC_BASE_URL: anthropicFake.url, ANTHROPIC_API_KEY: 'bench' };
    const cliPath = path.resolve('node_modules/.bin/claude');
    // Started at each call, and with the process started ahead that a layer repeating its call
    // gets (the app's default, issue 43 §4): the calls a second or more apart, as a mind's are.
    const cold = new ClaudeCodeCliBackend({ cliPath, env: cliEnv, warmPool: new CliWarmPool<WarmCli>({ max: 0, idleMs: 0 }) });
    const warmPool = new CliWarmPool<WarmCli>({ max: 4, idleMs: 120_000, minFreeBytes: 0 });
    const warm = new ClaudeCodeCliBackend({ cliPath, env: cliEnv, warmPool });
    await adapterFirstToken(cold);
    await adapterFirstToken(warm);
    await adapterFirstToken(warm);
    const coldRow: Row = { what: 'claude_code_cli adapter (real CLI), started at the call, vs anthropic adapter', samples: options.cliSamples, candidate: [], baseline: [] };
    const warmRow: Row = { what: 'claude_code_cli adapter (real CLI), process started ahead, vs anthropic adapter', samples: options.cliSamples, candidate: [], baseline: [] };
    for (let index = 0; index < options.cliSamples; index++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      warmRow.candidate.push(await adapterFirstToken(warm));
      const baseline = await adapterFirstToken(anthropicAdapter);
      warmRow.baseline.push(baseline);
      coldRow.baseline.push(baseline);
      coldRow.candidate.push(await adapterFirstToken(cold));
    }
    warmPool.closeAll();
    rows.push(coldRow, warmRow);
    fs.rmSync(home, { recursive: true, force: true });
  } finally {
    await anthropicFake.close();
    await openaiFake.close();
  }
  return rows;
}

export function backendsTable(rows: Row[]): string {
  const lines = [
    '| comparison (time to first text delta) | samples | candidate median ms | baseline median ms | ratio | added median ms | candidate p99 ms |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const candidate = median(row.candidate);
    const baseline = median(row.baseline);
    lines.push(
      `| ${row.what} | ${row.samples} | ${formatMs(candidate)} | ${formatMs(baseline)} | ${(candidate / baseline).toFixed(2)}× | ${formatMs(candidate - baseline)} | ${formatMs(percentile(row.candidate, 99))} |`,
    );
  }
  return lines.join('\n');
}
