// The mind's own costs, with the model taken out:
//  1. cycle overhead (prompt assembly, DB transaction, JSONL append, events) for a session with
//     no history and one with 10,000 stored messages, in alternating blocks of cycles;
//  2. memory after 10,000 cycles (heap after GC, RSS);
//  3. tokens per idle hour, continuous versus adaptive pacing, on the real pacing code with a
//     simulated clock and a fake model that takes simulated time and reports usage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BackendRequest, ModelBackend, StreamPart } from '../lib/backends/model-backend';
import type { Clock } from '../lib/clock/clock';
import type { LayerModelConfig, SessionParams } from '../lib/config/model-config';
import { summarySystemPrompt } from '../lib/session-mind/context-summaries';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { estimateRequestTokens } from '@/lib/mind/token-budget';
import { closeDb, getDb } from '../lib/store/db';
import { FakeClock } from '../test/support/fake-clock';
import { ScriptedBackend, subconsciousReply } from '../test/support/scripted-backend';
import { formatMs, median, percentile } from './stats';

const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 512, endpoint: 'http://127.0.0.1:9/v1' });
const models = { c_model: layer('c'), s_model: layer('s') };
const reply = subconsciousReply({ sLoud: 'Nothing pressing.', sQuiet: 'The room is quiet; I keep an eye on the thread.', mood: 'calm', criteria: 'Be brief.' });

/** A scratch data folder and a personas folder holding Iris as `bench`; returns the cleanup. */
export function useScratchDirs(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-'));
  fs.mkdirSync(path.join(root, 'personas'));
  fs.writeFileSync(path.join(root, 'personas', 'bench.md'), fs.readFileSync('personas/iris.md'));
  process.env.AGENTCSD_DATA_DIR = path.join(root, 'data');
  process.env.AGENTCSD_PERSONAS_DIR = path.join(root, 'personas');
  return () => fs.rmSync(root, { recursive: true, force: true });
}

async function seedMessages(sessionId: string, count: number): Promise<void> {
  const db = await getDb();
  const tags = [
    ['external', 'ED_user'],
    ['internal', 'ID_loud'],
    ['internal', 'ID_quiet'],
    ['external', 'ED_agent'],
    ['subconscious', 'S_loud'],
    ['subconscious', 'S_quiet'],
  ] as const;
  for (let start = 0; start < count; start += 1000) {
    await db.message.createMany({
      data: Array.from({ length: Math.min(1000, count - start) }, (_, index) => {
        const [layerName, tag] = tags[(start + index) % tags.length]!;
        return { sessionId, layer: layerName, tag, content: `${tag} ${start + index}: ${'words '.repeat(30)}`, cycleNumber: Math.floor((start + index) / 6) + 1, turnId: tag === 'ED_user' ? 'seeded' : null };
      }),
    });
  }
}

export interface CycleOverhead {
  blocks: number;
  emptyMs: number[];
  fullMs: number[];
}

/** Per-cycle time from cycle-start to subconscious-output with an instant model, continuous pacing. */
export async function benchCycleOverhead(options: { blockSize: number; blocks: number; storedMessages: number }): Promise<CycleOverhead> {
  const cleanup = useScratchDirs();
  try {
    // Two sessions made and paused by one orchestrator; the history seeded; a second one resumes
    // them (as after a restart), so the full session's mind starts with 10,000 messages stored.
    const maker = new Orchestrator({ createBackend: () => new ScriptedBackend([], { text: reply, holdAfterChunks: 0 }) });
    await maker.start();
    const ids: string[] = [];
    for (const name of ['empty', 'full']) {
      const session = await maker.createSession({ persona: 'bench', models: { c_model: models.c_model, s_model: { ...models.s_model, model: name } }, params: { pacing: 'continuous' } });
      ids.push(session.id);
    }
    await maker.stop();
    await seedMessages(ids[1]!, options.storedMessages);
    const db = await getDb();
    expect((await db.message.count({ where: { sessionId: ids[1]! } })) >= options.storedMessages, 'history seeded');
    await db.session.updateMany({ where: { id: { in: ids } }, data: { status: 'active' } });

    // Calls 1, 1 + blockSize, 1 + 2 × blockSize… hold their stream: each release runs one block.
    const held = (call: number) => (call - 1) % options.blockSize === 0;
    const backends = new Map(['empty', 'full'].map((name) => [name, new ScriptedBackend([], (_request, call) => ({ text: reply, chunkSize: 64, ...(held(call) && { holdAfterChunks: 0 }) }), { keepCalls: false })]));
    const orchestrator = new Orchestrator({ createBackend: (config) => backends.get(config.model)! });
    const times = new Map<string, number[]>(ids.map((id) => [id, []]));
    const started = new Map<string, number>();
    orchestrator.bus.subscribe((event) => {
      if (event.type === 'cycle-start') started.set(event.sessionId, performance.now());
      if (event.type === 'subconscious-output') times.get(event.sessionId)!.push(performance.now() - started.get(event.sessionId)!);
    });
    try {
      await orchestrator.start();
      const order = [backends.get('empty')!, backends.get('full')!];
      for (const backend of order) await backend.whenHolding();
      for (let block = 0; block < options.blocks; block++) {
        for (const backend of block % 2 === 0 ? order : [...order].reverse()) {
          backend.release();
          await new Promise((resolve) => setTimeout(resolve, 1));
          await backend.whenHolding();
        }
      }
    } finally {
      for (const backend of backends.values()) backend.release();
      await orchestrator.stop();
    }
    // The k-th output came from call k; calls that were held waited for the bench, not the mind.
    const counted = (samples: number[]) => samples.filter((_, index) => !held(index + 1));
    return { blocks: options.blocks, emptyMs: counted(times.get(ids[0]!)!), fullMs: counted(times.get(ids[1]!)!) };
  } finally {
    await closeDb();
    cleanup();
  }
}

export interface MemoryResult {
  cycles: number;
  heapAfter1kMb: number;
  heapAfterAllMb: number;
  rssAfter1kMb: number;
  rssAfterAllMb: number;
  gcAvailable: boolean;
}

function memoryNow() {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed / 2 ** 20, rss: usage.rss / 2 ** 20 };
}

/** Heap and RSS after 1,000 and after `cycles` cycles of one session, continuous pacing. */
export async function benchMemory(options: { cycles: number }): Promise<MemoryResult> {
  const cleanup = useScratchDirs();
  const checkpoints = new Map<number, ReturnType<typeof memoryNow>>();
  const backend = new ScriptedBackend([], (_request, call) => ({ text: reply, chunkSize: 64, ...((call === 1_000 || call === options.cycles) && { holdAfterChunks: 0 }) }), { keepCalls: false });
  const orchestrator = new Orchestrator({ createBackend: () => backend });
  try {
    await orchestrator.start();
    await orchestrator.createSession({ persona: 'bench', models, params: { pacing: 'continuous' } });
    await backend.whenHolding();
    checkpoints.set(1_000, memoryNow());
    backend.release();
    await new Promise((resolve) => setTimeout(resolve, 1));
    await backend.whenHolding();
    checkpoints.set(options.cycles, memoryNow());
  } finally {
    backend.release();
    await orchestrator.stop();
    await closeDb();
    cleanup();
  }
  const first = checkpoints.get(1_000)!;
  const last = checkpoints.get(options.cycles)!;
  return {
    cycles: options.cycles,
    heapAfter1kMb: first.heap,
    heapAfterAllMb: last.heap,
    rssAfter1kMb: first.rss,
    rssAfterAllMb: last.rss,
    gcAvailable: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}

/** A model on the simulated clock: it "thinks" at a fixed token rate and reports usage like a real server. */
export class SimulatedModel implements ModelBackend {
  readonly kind = 'openai_compatible' as const;
  constructor(
    private readonly clock: Clock,
    private readonly tokensPerSecond: number,
    private readonly firstTokenMs: number,
  ) {}

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    const inputTokens = Math.ceil((request.system.map((segment) => segment.text).join('') + request.messages.map((message) => message.content).join('')).length / 4);
    const outputTokens = Math.ceil(reply.length / 4);
    await this.clock.sleep(this.firstTokenMs + (outputTokens / this.tokensPerSecond) * 1000, signal);
    if (signal.aborted) return;
    yield { type: 'text-delta', text: reply };
    yield { type: 'finish', reason: 'stop', rawReason: 'stop' };
    yield { type: 'usage', usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 } };
  }
}

/** Stops an orchestrator whose minds sleep on a simulated clock (their grace runs on it), then the store and the scratch folders. */
export async function stopOnClock(orchestrator: Orchestrator, clock: FakeClock, cleanup: () => void): Promise<void> {
  const stopping = orchestrator.stop();
  await clock.advance(5_000);
  await stopping;
  await closeDb();
  cleanup();
}

export interface IdleHour {
  pacing: SessionParams['pacing'];
  cycles: number;
  inputTokens: number;
  outputTokens: number;
}

/** One simulated hour without user input, from the moment the session is created. */
export async function benchIdleHour(pacing: SessionParams['pacing']): Promise<IdleHour> {
  const cleanup = useScratchDirs();
  const clock = new FakeClock();
  const model = new SimulatedModel(clock, 50, 400);
  const orchestrator = new Orchestrator({ clock, createBackend: () => model });
  let cycles = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  orchestrator.bus.subscribe((event) => {
    if (event.type === 'subconscious-output') cycles++;
    if (event.type === 'usage') {
      inputTokens += event.call.inputTokens;
      outputTokens += event.call.outputTokens;
    }
  });
  try {
    await orchestrator.start();
    await orchestrator.createSession({ persona: 'bench', models, params: { pacing } });
    const end = clock.now() + 60 * 60_000;
    while (clock.now() < end) await clock.advance(Math.min(10_000, end - clock.now()));
  } finally {
    await stopOnClock(orchestrator, clock, cleanup);
  }
  return { pacing, cycles, inputTokens, outputTokens };
}

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(`bench precondition failed: ${what}`);
}

export function mindTables(input: { overhead: CycleOverhead; memory: MemoryResult; idle: IdleHour[] }): string {
  const { overhead, memory, idle } = input;
  const lines = [
    '### Cycle overhead without the model (instant scripted model, continuous pacing)\n',
    '| session | cycles | median ms | p99 ms |',
    '|---|---|---|---|',
    `| no stored history | ${overhead.emptyMs.length} | ${formatMs(median(overhead.emptyMs))} | ${formatMs(percentile(overhead.emptyMs, 99))} |`,
    `| 10,000 stored messages | ${overhead.fullMs.length} | ${formatMs(median(overhead.fullMs))} | ${formatMs(percentile(overhead.fullMs, 99))} |`,
    `\nRatio of medians (10,000 / none): ${(median(overhead.fullMs) / median(overhead.emptyMs)).toFixed(2)}×, ${overhead.blocks} alternating blocks.\n`,
    `### Memory over ${memory.cycles.toLocaleString('en')} cycles (${memory.gcAvailable ? 'after a forced GC' : 'no forced GC: run with --expose-gc'})\n`,
    '| after | heap used MiB | RSS MiB |',
    '|---|---|---|',
    `| 1,000 cycles | ${memory.heapAfter1kMb.toFixed(1)} | ${memory.rssAfter1kMb.toFixed(0)} |`,
    `| ${memory.cycles.toLocaleString('en')} cycles | ${memory.heapAfterAllMb.toFixed(1)} | ${memory.rssAfterAllMb.toFixed(0)} |`,
    `\nHeap growth per cycle after the first 1,000: ${(((memory.heapAfterAllMb - memory.heapAfter1kMb) * 2 ** 20) / (memory.cycles - 1_000)).toFixed(0)} bytes.\n`,
    '### Tokens per idle hour (simulated clock, model at 50 tokens/s + 400 ms to first token)\n',
    '| pacing | cycles | input tokens | output tokens | total |',
    '|---|---|---|---|---|',
    ...idle.map((row) => `| ${row.pacing} | ${row.cycles} | ${row.inputTokens.toLocaleString('en')} | ${row.outputTokens.toLocaleString('en')} | ${(row.inputTokens + row.outputTokens).toLocaleString('en')} |`),
  ];
  const [continuous, adaptive] = [idle.find((row) => row.pacing === 'continuous'), idle.find((row) => row.pacing === 'adaptive')];
  if (continuous && adaptive) {
    const ratio = (continuous.inputTokens + continuous.outputTokens) / (adaptive.inputTokens + adaptive.outputTokens);
    lines.push(`\nAdaptive uses ${ratio.toFixed(1)}× fewer tokens per idle hour than continuous.`);
  }
  return lines.join('\n');
}

export interface AgeRow {
  age: number;
  assemblyMs: number[];
  promptTokens: number[];
}

/**
 * Prompt assembly time (cycle start → the model called: windows fitted, summary folded when due)
 * and prompt size as a session ages; one session, continuous pacing, an 8,192-token window, the
 * last 50 cycles before each age sampled.
 */
export async function benchPromptByAge(ages: number[]): Promise<AgeRow[]> {
  const cleanup = useScratchDirs();
  const last = Math.max(...ages);
  let cycle = 0;
  let cycleStartedAt = 0;
  const assembly = new Map<number, number>();
  const tokens = new Map<number, number>();
  const backend = new ScriptedBackend(
    [],
    (request) => {
      if (request.system[0]!.text === summarySystemPrompt) return { text: `Summary so far: ${'gist '.repeat(40)}` };
      cycle++;
      assembly.set(cycle, performance.now() - cycleStartedAt);
      tokens.set(cycle, estimateRequestTokens(request));
      return {
        text: subconsciousReply({ sQuiet: `thought ${cycle}: ${'ponder '.repeat(80)}`, sLoud: `note ${cycle}` }),
        chunkSize: 4_000,
        ...(cycle === last && { holdAfterChunks: 0 }),
      };
    },
    { keepCalls: false },
  );
  const orchestrator = new Orchestrator({ createBackend: () => backend });
  orchestrator.bus.subscribe((event) => {
    if (event.type === 'cycle-start') cycleStartedAt = performance.now();
  });
  try {
    await orchestrator.start();
    await orchestrator.createSession({
      persona: 'bench',
      models: { c_model: models.c_model, s_model: { ...models.s_model, context_window: 8_192 } },
      params: { pacing: 'continuous', summary_every_n: 10 },
    });
    await backend.whenHolding();
  } finally {
    backend.release();
    await orchestrator.stop();
    await closeDb();
    cleanup();
  }
  const window = (age: number) => Array.from({ length: 50 }, (_, index) => age - 49 + index);
  return ages.map((age) => ({ age, assemblyMs: window(age).map((n) => assembly.get(n)!), promptTokens: window(age).map((n) => tokens.get(n)!) }));
}

export function ageTable(rows: AgeRow[]): string {
  return [
    '| session age (cycles) | assembly median ms | assembly p99 ms | prompt tokens (median) | prompt tokens (max) |',
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.age.toLocaleString('en')} | ${formatMs(median(row.assemblyMs))} | ${formatMs(percentile(row.assemblyMs, 99))} | ${median(row.promptTokens).toLocaleString('en')} | ${Math.max(...row.promptTokens).toLocaleString('en')} |`,
    ),
  ].join('\n');
}
