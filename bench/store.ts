// The store's writes on a turn's path, SQLite against PostgreSQL (issue 19): what a turn with one
// tool call writes — the step with its call (committed before it runs), the call finished, the turn
// closed, two model-call rows, the turn's messages — through the real repositories, timed per turn.
// SQLite runs them as statements prepared once; PostgreSQL as one named (prepared) statement per
// commit point on a pool of its own (lib/store/pg-raw.ts), each one round trip (loopback here).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { closeDb, getDb } from '@/lib/store/db';
import { insertLlmCall, insertTurn } from '@/lib/store/mind-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { closeAgentTurn, finishToolCall, insertAgentStep } from '@/lib/store/tool-calls-repository';
import { databaseUrl } from '@/test/support/postgres';
import { formatMs, median, percentile } from './stats';

export interface StoreTurnResult {
  store: 'sqlite' | 'postgres';
  samples: number[];
}

export async function benchStoreTurn(options: { turns: number; postgresUrl?: string }): Promise<StoreTurnResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-store-'));
  process.env.AGENTCSD_DATA_DIR = dataDir;
  if (options.postgresUrl) process.env.AGENTCSD_DATABASE_URL = databaseUrl(options.postgresUrl, `store_${crypto.randomUUID().replaceAll('-', '')}`);
  try {
    await getDb();
    const sessionId = crypto.randomUUID();
    await insertSession({ id: sessionId, name: 'bench', personaName: 'bench', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
    const samples: number[] = [];
    const warmUp = 30;
    for (let turn = 0; turn < options.turns + warmUp; turn++) {
      const turnId = crypto.randomUUID();
      const started = performance.now();
      const [call] = await insertAgentStep({
        sessionId,
        turn: { turnId, spontaneous: false, cycleNumber: turn, answering: [], prompt: 'p' },
        step: 0,
        assistantText: 'Looking.',
        calls: [{ id: crypto.randomUUID(), providerCallId: `c${turn}`, name: 'grep', args: { pattern: `p${turn}` }, approval: 'none', status: 'running' }],
      });
      await finishToolCall({ id: call!.id, status: 'succeeded', result: 'found', isError: false, exitCode: 0, running: call });
      await closeAgentTurn({ sessionId, turnId });
      for (let step = 0; step < 2; step++) {
        await insertLlmCall({ sessionId, layer: 'internal', backend: 'openai_compatible', model: 'm', startedAt: new Date(), firstTokenMs: 10, durationMs: 20, inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null, finishReason: 'stop', error: null });
      }
      await insertTurn({ sessionId, turnId, cycleNumber: turn, spontaneous: false, loud: 'Found it.', quiet: 'ok', interrupted: false, answeredMessageIds: [] });
      if (turn >= warmUp) samples.push(performance.now() - started);
    }
    return { store: options.postgresUrl ? 'postgres' : 'sqlite', samples };
  } finally {
    await closeDb();
    delete process.env.AGENTCSD_DATABASE_URL;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function storeTable(results: readonly StoreTurnResult[]): string {
  const sqlite = results.find((result) => result.store === 'sqlite');
  return [
    '| store | writes per turn with one tool call: p50 ms | p99 ms | p50 against SQLite |',
    '|---|---|---|---|',
    ...results.map(
      (result) =>
        `| ${result.store === 'postgres' ? 'PostgreSQL (loopback, one statement per commit point)' : 'SQLite (prepared statements)'} | ${formatMs(median(result.samples))} | ${formatMs(percentile(result.samples, 99))} | ${sqlite ? `${(median(result.samples) / median(sqlite.samples)).toFixed(1)}×` : '—'} |`,
    ),
  ].join('\n');
}
