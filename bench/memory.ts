// Memory, measured (issue 17):
//   locomo  — retrieval quality on LoCoMo (../shared/data/locomo-dev.json, read at run time, never
//             copied): each conversation's turns go through the real store as one persona's
//             sessions ("speaker: text", the session's date as the time), each question is asked
//             of `recall`, and recall@5 / @10 of its evidence turns is scored per category.
//   latency — `recall` at 10k and 100k stored messages + memories; and at 10k with an embeddings
//             endpoint (the fake's, over loopback HTTP: the cost of the query's vector and the
//             exact vector search, not the quality of a real model).
//   consolidation — tokens per 100 new turns: LoCoMo conversations consolidated through the real
//             consolidation code and prompt, with the fake model's answers (one fact per user turn).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { recall, type RecallWeights } from '@/lib/memory/recall';
import { appendMemory } from '@/lib/memory/memory-store';
import { closeDb, getDb, getStore } from '@/lib/store/db';
import { rawDb, sqliteDate, statement } from '@/lib/store/raw-db';
import { insertSession } from '@/lib/store/sessions-repository';
import { databaseUrl } from '@/test/support/postgres';
import { defaultRetryPolicy } from '@/lib/backends/retry-policy';
import { estimateCost } from '@/lib/backends/pricing';
import { realClock } from '@/lib/clock/clock';
import { consolidateSession } from '@/lib/memory/consolidation';
import { createEmbedder, type Embedder } from '@/lib/memory/embeddings';
import { defaultMemorySettings, writeMemorySettings } from '@/lib/memory/memory-settings';
import { indexPending } from '@/lib/memory/vector-index';
import { callModel } from '@/lib/mind/model-call';
import { consolidationAnswer } from '@/test/fakes/consolidation-script';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { formatMs, median, percentile } from './stats';

export const locomoFile = path.resolve('../shared/data/locomo-dev.json');

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface LocomoItem {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: { question: string; evidence: string[]; category: number }[];
}

const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → a Date (UTC). */
export function locomoDate(text: string): Date {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(text);
  if (!match) throw new Error(`unreadable LoCoMo date: ${text}`);
  const [, hour, minute, half, day, month, year] = match;
  const hours = (Number(hour) % 12) + (half!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(year), months.indexOf(month!.toLowerCase()), Number(day), hours, Number(minute)));
}

function freshDataDir(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-memory-'));
  process.env.AGENTCSD_DATA_DIR = dataDir;
  return dataDir;
}

/** Where a memory benchmark keeps its store: a fresh SQLite folder, or a fresh database on the given PostgreSQL. */
export async function freshStore(postgresUrl: string | undefined): Promise<() => Promise<void>> {
  const dataDir = freshDataDir();
  if (postgresUrl) process.env.AGENTCSD_DATABASE_URL = databaseUrl(postgresUrl, `bench_${crypto.randomUUID().replaceAll('-', '')}`);
  await getDb(); // a new PostgreSQL database is created on first use
  return async () => {
    await closeDb();
    delete process.env.AGENTCSD_DATABASE_URL;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

interface NewMessage {
  sessionId: string;
  tag: 'ED_user' | 'ED_agent';
  content: string;
  createdAt: Date;
}

/** Stores conversation messages in bulk, in order; their ids. Prepared statements in one transaction on SQLite. */
export async function insertMessages(rows: readonly NewMessage[]): Promise<number[]> {
  const store = await getStore();
  if (store.kind === 'postgres') {
    const ids: number[] = [];
    for (let start = 0; start < rows.length; start += 5_000) {
      const created = await store.db.message.createManyAndReturn({
        data: rows.slice(start, start + 5_000).map((row) => ({ ...row, layer: 'external', cycleNumber: 0 })),
        select: { id: true },
      });
      ids.push(...created.map((row) => row.id));
    }
    return ids;
  }
  const raw = rawDb();
  const insert = statement(raw, `INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, spontaneous, interrupted) VALUES (?, 'external', ?, ?, ?, 0, 0, 0) RETURNING id`);
  return raw.database.transaction(() => rows.map((row) => (insert.get(row.sessionId, row.tag, row.content, sqliteDate(row.createdAt)) as { id: number }).id))();
}

/** Stores a conversation as one persona's sessions; returns message id → dia_id, and when it ended. */
async function ingest(item: LocomoItem, persona: string): Promise<{ diaOf: Map<number, string>; ended: Date }> {
  const byId = new Map<number, string>();
  let ended = new Date(0);
  const sessions = Object.keys(item.conversation).filter((key) => /^session_\d+$/.test(key)).sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
  for (const key of sessions) {
    const sessionId = crypto.randomUUID();
    await insertSession({ id: sessionId, name: `${item.sample_id} ${key}`, personaName: persona, personaHash: 'locomo', models: defaultModels, params: defaultParams, status: 'paused' });
    const at = locomoDate(String(item.conversation[`${key}_date_time`]));
    const turns = item.conversation[key] as LocomoTurn[];
    const ids = await insertMessages(
      turns.map((turn, index) => ({
        sessionId,
        tag: turn.speaker === item.conversation.speaker_a ? 'ED_user' : 'ED_agent',
        content: `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : ''}`,
        createdAt: new Date(at.getTime() + index * 1000),
      })),
    );
    ids.forEach((id, index) => byId.set(id, turns[index]!.dia_id));
    ended = new Date(Math.max(ended.getTime(), at.getTime() + turns.length * 1000));
  }
  return { diaOf: byId, ended };
}

export interface LocomoResult {
  questions: number;
  byCategory: Map<number, { n: number; at5: number; at10: number }>;
  overall: { at5: number; at10: number };
  recallMs: number[];
  /** The embedder's model when recall was hybrid. */
  embedder?: string;
  store: 'sqlite' | 'postgres';
}

export async function benchLocomo(options: { weights?: Partial<RecallWeights>; embedder?: Embedder; postgresUrl?: string } = {}): Promise<LocomoResult | null> {
  if (!fs.existsSync(locomoFile)) return null;
  const data = JSON.parse(fs.readFileSync(locomoFile, 'utf8')) as LocomoItem[];
  const done = await freshStore(options.postgresUrl);
  const byCategory = new Map<number, { n: number; at5: number; at10: number }>();
  const recallMs: number[] = [];
  let questions = 0;
  let sum5 = 0;
  let sum10 = 0;
  for (const [index, item] of data.entries()) {
    const persona = `locomo-${index}`;
    // The questions are asked when the conversation has ended: its dates ("last May") read from then.
    const { diaOf, ended } = await ingest(item, persona);
    if (options.embedder) await indexPending(options.embedder, { batch: 64 });
    for (const qa of item.qa) {
      if (!qa.evidence?.length) continue;
      const started = performance.now();
      const hits = await recall({ personaName: persona, query: qa.question, k: 10, now: ended, weights: { recency: 0, ...options.weights }, embedder: options.embedder ?? null });
      recallMs.push(performance.now() - started);
      const found = hits.map((hit) => (hit.kind === 'message' ? diaOf.get(hit.id) : undefined));
      const evidence = new Set(qa.evidence);
      const at = (k: number) => found.slice(0, k).filter((dia) => dia && evidence.has(dia)).length / evidence.size;
      const entry = byCategory.get(qa.category) ?? { n: 0, at5: 0, at10: 0 };
      entry.n += 1;
      entry.at5 += at(5);
      entry.at10 += at(10);
      byCategory.set(qa.category, entry);
      sum5 += at(5);
      sum10 += at(10);
      questions += 1;
    }
  }
  await done();
  return { questions, byCategory, overall: { at5: (100 * sum5) / questions, at10: (100 * sum10) / questions }, recallMs, embedder: options.embedder?.model, store: options.postgresUrl ? 'postgres' : 'sqlite' };
}

export interface RecallLatency {
  size: number;
  hybrid: boolean;
  store: 'sqlite' | 'postgres';
  samples: number[];
  ingestPerSecond: number;
}

export const words = 'coffee tea garden piano river mountain project deadline birthday concert museum recipe bicycle library holiday painting football camera journey ocean'.split(' ');

/** `count` paused sessions of one persona, for a store filled by a benchmark. */
export async function pausedSessions(persona: string, count: number): Promise<string[]> {
  const sessions: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = crypto.randomUUID();
    await insertSession({ id, name: `s${index}`, personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    sessions.push(id);
  }
  return sessions;
}

/** Twelve-word sentences, 30% of them from `words`, the rest rare tokens; the same for the same seed. */
export function sentences(seed: number): () => string {
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  return () => Array.from({ length: 12 }, () => (random() < 0.3 ? words[Math.floor(random() * words.length)] : `w${Math.floor(random() * 5000)}`)).join(' ');
}

/** `recall` over `size` stored items (90% messages over 100 sessions, 10% memories), one persona. */
export async function benchRecallLatency(options: { size: number; queries: number; embedder?: Embedder; postgresUrl?: string; unanalysed?: boolean; weights?: Partial<RecallWeights> }): Promise<RecallLatency> {
  const done = await freshStore(options.postgresUrl);
  const persona = 'latency';
  const sessions = await pausedSessions(persona, 100);
  const sentence = sentences(7);
  const messageCount = Math.round(options.size * 0.9);
  const started = performance.now();
  await insertMessages(
    Array.from({ length: messageCount }, (_, index) => ({
      sessionId: sessions[index % sessions.length]!,
      tag: index % 2 ? ('ED_agent' as const) : ('ED_user' as const),
      content: sentence(),
      createdAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000),
    })),
  );
  for (let index = 0; index < options.size - messageCount; index++) await appendMemory({ personaName: persona, content: `${sentence()} #${index}` });
  const ingestPerSecond = options.size / ((performance.now() - started) / 1000);
  if (options.embedder) await indexPending(options.embedder, { batch: 256 });
  // PostgreSQL: the statistics autovacuum gathers a minute after a bulk load, gathered now (recall
  // reads its words' frequencies from them; without, it counts them through the index).
  if (options.postgresUrl && !options.unanalysed) await (await getDb()).$executeRawUnsafe('ANALYZE messages, memories, sessions');
  const samples: number[] = [];
  for (let index = 0; index < options.queries; index++) {
    const query = `what about the ${words[index % words.length]} and the ${words[(index * 7) % words.length]}?`;
    const begun = performance.now();
    await recall({ personaName: persona, query, k: 10, embedder: options.embedder ?? null, weights: options.weights });
    samples.push(performance.now() - begun);
  }
  await done();
  return { size: options.size, samples, ingestPerSecond, hybrid: Boolean(options.embedder), store: options.postgresUrl ? 'postgres' : 'sqlite' };
}

/** Recall at `size` items, lexical and hybrid (the fake embedder on loopback), side by side. */
export async function benchHybridLatency(options: { size: number; queries: number }): Promise<RecallLatency[]> {
  const fake = await startFakeOpenAIServer({ port: 3337 });
  try {
    const embedder = createEmbedder({ endpoint: `${fake.url}/v1`, model: 'fake-embed' });
    return [await benchRecallLatency(options), await benchRecallLatency({ ...options, embedder })];
  } finally {
    await fake.close();
  }
}

export interface ConsolidationTokens {
  turns: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Consolidates every LoCoMo conversation as one session each, until nothing is new. */
export async function benchConsolidationTokens(): Promise<ConsolidationTokens | null> {
  if (!fs.existsSync(locomoFile)) return null;
  const data = JSON.parse(fs.readFileSync(locomoFile, 'utf8')) as LocomoItem[];
  const dataDir = freshDataDir();
  await getDb();
  await writeMemorySettings({ ...defaultMemorySettings, consolidation: { ...defaultMemorySettings.consolidation, calls_per_hour: 120, usd_per_hour: 100 } });
  const backend = new ScriptedBackend([], (request) => ({ text: consolidationAnswer(request.messages[0]!.content) }), { keepCalls: false });
  const config = { backend: 'anthropic' as const, model: 'claude-haiku-5-5', max_tokens: 1200 };
  const totals: ConsolidationTokens = { turns: 0, calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  let now = Date.UTC(2027, 0, 1);
  for (const [index, item] of data.entries()) {
    const persona = `consolidate-${index}`;
    // The questions are asked when the conversation has ended: its dates ("last May") read from then.
    const { diaOf, ended } = await ingest(item, persona);
    totals.turns += diaOf.size;
    // One session holding the whole conversation: consolidation walks it 60 messages at a time.
    const sessionId = crypto.randomUUID();
    await insertSession({ id: sessionId, name: persona, personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    rawDb().database.prepare('UPDATE messages SET session_id = ? WHERE session_id IN (SELECT id FROM sessions WHERE persona_name = ? AND id != ?)').run(sessionId, persona, sessionId);
    for (;;) {
      now += 3_600_000;
      const outcome = await consolidateSession({
        context: {
          sessionId,
          session: () => ({ models: { s_model: config } }) as never,
          callModel: async ({ request, signal }) => {
            const result = await callModel({ backend, request, signal, clock: realClock, retryPolicy: defaultRetryPolicy, random: Math.random, stallTimeoutMs: 60_000 });
            if (result.usage) {
              totals.calls += 1;
              totals.inputTokens += result.usage.inputTokens;
              totals.outputTokens += result.usage.outputTokens;
              const cost = estimateCost(config.model, { ...result.usage });
              if (cost !== 'unknown') totals.costUsd += cost;
              result.usage.costUsd = cost;
            }
            return result;
          },
        },
        personaName: persona,
        signal: new AbortController().signal,
        now: new Date(now),
      });
      if (outcome.kind === 'skipped') break;
    }
  }
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return totals;
}

const categories: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

export function memoryTables(input: { locomo: LocomoResult | null; hybridLocomo?: LocomoResult | null; postgresLocomo?: LocomoResult | null; latency: RecallLatency[]; consolidation: ConsolidationTokens | null }): string {
  const lines: string[] = [];
  if (!input.locomo) lines.push(`LoCoMo skipped: ${locomoFile} is not there (see ../shared/data/README.md).`);
  for (const locomo of [input.locomo, input.hybridLocomo, input.postgresLocomo]) {
    if (!locomo) continue;
    if (locomo !== input.locomo) lines.push('');
    lines.push(
      `LoCoMo, ${locomo.questions} questions with evidence over 5 conversations; ${locomo.store === 'postgres' ? 'the store on PostgreSQL, lexical recall (tsvector, english)' : locomo.embedder ? `hybrid recall (FTS5 + ${locomo.embedder})` : 'lexical recall (FTS5, porter)'}, recency weight 0.`,
      '',
      '| category | questions | recall@5 | recall@10 |',
      '|---|---|---|---|',
      ...[...locomo.byCategory.entries()].sort(([a], [b]) => a - b).map(([category, entry]) => `| ${category} ${categories[category]} | ${entry.n} | ${((100 * entry.at5) / entry.n).toFixed(1)} | ${((100 * entry.at10) / entry.n).toFixed(1)} |`),
      `| **all** | ${locomo.questions} | **${locomo.overall.at5.toFixed(1)}** | **${locomo.overall.at10.toFixed(1)}** |`,
      '',
      `References on the same conversations: plain BM25 recall@5 48.1, @10 56.1; DRAGON (paper, all ten) @5 56.7, @10 66.2. recall p50 ${formatMs(median(locomo.recallMs))} ms.`,
    );
  }
  lines.push('', '| stored items | store | recall | p50 ms | p99 ms | ingest items/s |', '|---|---|---|---|---|---|');
  for (const entry of input.latency) {
    lines.push(
      `| ${entry.size.toLocaleString('en-US')} | ${entry.store === 'postgres' ? 'PostgreSQL' : 'SQLite'} | ${entry.hybrid ? 'hybrid (fake embedder, loopback)' : 'lexical'} | ${formatMs(median(entry.samples))} | ${formatMs(percentile(entry.samples, 99))} | ${Math.round(entry.ingestPerSecond).toLocaleString('en-US')} |`,
    );
  }
  const tokens = input.consolidation;
  if (tokens) {
    const per100 = (value: number) => Math.round((100 * value) / tokens.turns).toLocaleString('en-US');
    lines.push(
      '',
      `Consolidation of ${tokens.turns.toLocaleString('en-US')} LoCoMo turns (60 new messages per call, the real prompt; the fake model writes one fact per user turn, more than a real model keeps):`,
      `per 100 new turns ${(100 * tokens.calls / tokens.turns).toFixed(2)} calls, ${per100(tokens.inputTokens)} input + ${per100(tokens.outputTokens)} output tokens, $${((100 * tokens.costUsd) / tokens.turns).toFixed(4)} at claude-haiku-5-5 prices.`,
    );
  }
  return lines.join('\n');
}
