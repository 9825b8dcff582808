// What the channel benchmarks share (issues 28 and 47): one process with the real orchestrator and
// store, the fake model streaming at a fixed pace (50 ms to the first token, 4 characters per 5 ms),
// one channel of the kind measured, paired to one session; and the comparison itself — the same
// message sent from the page's entry (sendUserMessage, what the socket's send-message calls) and
// through the channel, interleaved, timing the first reply token on the bus and the whole reply
// (turn end on the page; arrival at the provider's fake through the channel).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { listOpenPairings, saveChannel, type ChannelKind } from '@/lib/store/channels-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { formatMs, median, percentile } from './stats';

export interface PathSamples {
  firstTokenMs: number[];
  wholeMs: number[];
}

export interface ChatBench {
  orchestrator: Orchestrator;
  sessionId: string;
  channelId: string;
  /** Until the event `pick` finds (for the session), from now. */
  next<T>(pick: (event: OrchestratorEvent) => T | undefined): Promise<T>;
  close(): Promise<void>;
}

/** The app with one channel of `kind` (its fake already running), paired to a new session by `pair` (a stranger's first words). */
export async function startChatBench(input: { kind: ChannelKind; config: Record<string, unknown>; pair(app: { orchestrator: Orchestrator; channelId: string }): Promise<void> | void }): Promise<ChatBench> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `agentcsd-bench-${input.kind}-`));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  const model: FakeOpenAIServer = await startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 5, firstDeltaDelayMs: 50 });
  const channelId = randomUUID();
  const parsed = channelInputSchema.parse({ id: channelId, kind: input.kind, name: 'bench', config: input.config });
  await saveChannel({ id: channelId, kind: input.kind, name: 'bench', enabled: true, config: mergeChannelConfig({ ...parsed, id: channelId }, null) });
  const orchestrator = new Orchestrator({ channels: true });
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { pacing: 'adaptive' } });
  while ((await orchestrator.channels!.status(channelId)).state.kind !== 'connected') await new Promise((resolve) => setTimeout(resolve, 20));
  await input.pair({ orchestrator, channelId });
  while ((await listOpenPairings(channelId, new Date())).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const [pairing] = await listOpenPairings(channelId, new Date());
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, share: true }));
  return {
    orchestrator,
    sessionId: session.id,
    channelId,
    next: <T>(pick: (event: OrchestratorEvent) => T | undefined) =>
      new Promise<T>((resolve) => {
        const stop = orchestrator.bus.subscribe((event) => {
          if (event.sessionId !== session.id) return;
          const found = pick(event);
          if (found === undefined) return;
          stop();
          resolve(found);
        });
      }),
    async close() {
      await orchestrator.stop();
      await model.close();
      await closeDb();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `found` gives a time (performance.now() scale). */
export function whenFound(found: () => number | undefined): Promise<number> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      const at = found();
      if (at === undefined) return;
      clearInterval(poll);
      resolve(at);
    }, 1);
  });
}

/**
 * One sample: the text sent from the page or through the channel (`send`), the first reply token
 * on the bus, the whole reply (`arrived`: when the channel's reply reached the fake, in
 * performance.now() time), and `after` for what a benchmark adds (it runs once the turn ended).
 */
export async function samplePath<V extends string, X = undefined>(
  bench: ChatBench,
  via: V | 'page',
  index: number,
  channel: { send(text: string): Promise<void> | void; arrived(text: string): Promise<number>; after?(startedAt: number): Promise<X> },
): Promise<{ first: number; whole: number; extra?: X }> {
  const text = `sample ${via} ${index} ${randomUUID().slice(0, 8)}`;
  const firstToken = bench.next((event) => (event.type === 'reply-delta' ? performance.now() : undefined));
  const turnEnd = bench.next((event) => (event.type === 'turn-end' ? performance.now() : undefined));
  const started = performance.now();
  if (via === 'page') await bench.orchestrator.sendUserMessage(bench.sessionId, { text });
  else await channel.send(text);
  const first = (await firstToken) - started;
  const whole = via === 'page' ? (await turnEnd) - started : (await channel.arrived(text)) - started;
  await turnEnd;
  return { first, whole, ...(via !== 'page' && channel.after && { extra: await channel.after(started) }) };
}

/** Three warm-up rounds, then `samples` rounds of both entries, alternating which goes first. */
export async function interleaved<V extends string, R>(vias: readonly [V, V], samples: number, sample: (via: V, index: number) => Promise<R>, record: (via: V, result: R) => void): Promise<void> {
  for (let warm = 0; warm < 3; warm++) for (const via of vias) await sample(via, -warm);
  for (let index = 0; index < samples; index++) {
    for (const via of index % 2 === 0 ? vias : ([vias[1], vias[0]] as const)) record(via, await sample(via, index));
  }
}

/** A table row of one entry's first-token and whole-reply samples. */
export function pathRow(what: string, samples: PathSamples): string {
  return `| ${what} | ${samples.firstTokenMs.length} | ${formatMs(median(samples.firstTokenMs))} | ${formatMs(percentile(samples.firstTokenMs, 99))} | ${formatMs(median(samples.wholeMs))} | ${formatMs(percentile(samples.wholeMs, 99))} |`;
}

export const PATH_HEADER = ['| entry | replies | first reply token median ms | p99 ms | whole reply delivered median ms | p99 ms |', '| --- | --- | --- | --- | --- | --- |'];

/** "adds X ms to the first token and Y ms to the whole reply" of `channel` over `page` (medians). */
export function added(page: PathSamples, channel: PathSamples): string {
  return `${formatMs(median(channel.firstTokenMs) - median(page.firstTokenMs))} ms to the first token and ${formatMs(median(channel.wholeMs) - median(page.wholeMs))} ms to the whole reply (medians, interleaved samples)`;
}
