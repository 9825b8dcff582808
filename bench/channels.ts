// Channels, measured (issue 28), in one process against the fakes (fake OpenAI-compatible model
// streaming at a fixed pace, fake Bot API on loopback), the real orchestrator and store:
//   path     — the same message sent into one session from the page's entry (sendUserMessage, what
//              the socket's send-message calls) and from a paired Telegram chat, interleaved:
//              first reply token on the bus (what the page streams), and the whole reply — on
//              the page at turn end, in the chat when the fake Bot API receives it. The difference
//              is what the channel path adds: the long poll's answer, the binding and session
//              look-ups, the outbox row, formatting and the sendMessage call.
//   outbox   — 300 messages queued at once to a chat against a Bot API that throttles at 30
//              messages a second (429 retry_after 1 beyond it, as Telegram does): delivered per
//              second, 429s received, and whether they arrived in order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { enqueueOutbox, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram } from '@/test/fakes/fake-telegram-server';
import { mindScript } from '@/test/fakes/mind-script';
import { formatMs, median, percentile } from './stats';

export interface ChannelsResult {
  samples: number;
  page: { firstTokenMs: number[]; wholeMs: number[] };
  channel: { firstTokenMs: number[]; wholeMs: number[] };
  outbox: { messages: number; seconds: number; throttled: number; inOrder: boolean; limitPerSecond: number };
}

/** Three warm-up rounds, then `samples` rounds of both entries, alternating which goes first. */
export async function interleaved<V extends string, R>(vias: readonly [V, V], samples: number, sample: (via: V, index: number) => Promise<R>, record: (via: V, result: R) => void): Promise<void> {
  for (let warm = 0; warm < 3; warm++) for (const via of vias) await sample(via, -warm);
  for (let index = 0; index < samples; index++) {
    for (const via of index % 2 === 0 ? vias : ([vias[1], vias[0]] as const)) record(via, await sample(via, index));
  }
}

/** A table row of one entry's first-token and whole-reply samples. */
export function pathRow(what: string, samples: { firstTokenMs: number[]; wholeMs: number[] }): string {
  return `| ${what} | ${samples.firstTokenMs.length} | ${formatMs(median(samples.firstTokenMs))} | ${formatMs(percentile(samples.firstTokenMs, 99))} | ${formatMs(median(samples.wholeMs))} | ${formatMs(percentile(samples.wholeMs, 99))} |`;
}

export const PATH_HEADER = ['| entry | replies | first reply token median ms | p99 ms | whole reply delivered median ms | p99 ms |', '| --- | --- | --- | --- | --- | --- |'];

/** Until the event `pick` finds (for this session), from now. */
export function busWaiter(orchestrator: Orchestrator, sessionId: string) {
  return <T>(pick: (event: OrchestratorEvent) => T | undefined) =>
    new Promise<T>((resolve) => {
      const stop = orchestrator.bus.subscribe((event) => {
        if (event.sessionId !== sessionId) return;
        const found = pick(event);
        if (found === undefined) return;
        stop();
        resolve(found);
      });
    });
}

export async function benchChannels(options: { samples: number; outboxMessages: number }): Promise<ChannelsResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-channels-'));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  const model = await startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 5, firstDeltaDelayMs: 50 });
  const telegram = await startFakeTelegram();
  const channelId = randomUUID();
  const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'bench', config: { token: telegram.token, api_root: telegram.apiRoot } });
  await saveChannel({ id: channelId, kind: 'telegram', name: 'bench', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
  const orchestrator = new Orchestrator({ channels: true });
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { pacing: 'adaptive' } });
  const user = { id: 5150, username: 'bench' };
  telegram.userWrites(user, 'let me in');
  while ((await listOpenPairings(channelId, new Date())).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const [pairing] = await listOpenPairings(channelId, new Date());
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id }));

  const next = busWaiter(orchestrator, session.id);
  const delivered = (text: string) =>
    new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        const hit = telegram.sent.find((message) => message.chatId === String(user.id) && message.text.includes(text));
        if (!hit) return;
        clearInterval(poll);
        resolve(hit.at);
      }, 1);
    });
  const sample = async (via: 'page' | 'channel', index: number) => {
    const text = `sample ${via} ${index} ${randomUUID().slice(0, 8)}`;
    const firstToken = next((event) => (event.type === 'reply-delta' ? performance.now() : undefined));
    const turnEnd = next((event) => (event.type === 'turn-end' ? performance.now() : undefined));
    const wallStart = Date.now();
    const started = performance.now();
    if (via === 'page') await orchestrator.sendUserMessage(session.id, { text });
    else telegram.userWrites(user, text);
    const first = (await firstToken) - started;
    const whole = via === 'page' ? (await turnEnd) - started : (await delivered(`You said: ${text}`)) - wallStart;
    await turnEnd;
    return { first, whole };
  };
  const result: ChannelsResult = {
    samples: options.samples,
    page: { firstTokenMs: [], wholeMs: [] },
    channel: { firstTokenMs: [], wholeMs: [] },
    outbox: { messages: options.outboxMessages, seconds: 0, throttled: 0, inOrder: false, limitPerSecond: 30 },
  };
  await interleaved(['page', 'channel'], options.samples, sample, (via, { first, whole }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
  });

  // The outbox against a throttling Bot API.
  await orchestrator.pauseSession(session.id);
  telegram.throttle(result.outbox.limitPerSecond);
  const callsBefore = telegram.calls.length;
  const sentBefore = telegram.sent.length;
  const started = performance.now();
  for (let index = 0; index < options.outboxMessages; index++) await enqueueOutbox({ channelId, address: String(user.id), payload: { text: `queued ${index}` } });
  orchestrator.channels!.wake(channelId);
  const queued = () => telegram.sent.slice(sentBefore).filter((message) => /^queued \d+$/.test(message.text));
  while (queued().length < options.outboxMessages) await new Promise((resolve) => setTimeout(resolve, 20));
  result.outbox.seconds = (performance.now() - started) / 1000;
  result.outbox.throttled = telegram.calls.slice(callsBefore).filter((call) => call.status === 429).length;
  const order = queued().map((message) => Number(/^queued (\d+)$/.exec(message.text)![1]));
  result.outbox.inOrder = order.every((value, index) => value === index);

  await orchestrator.stop();
  await telegram.close();
  await model.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}

export function channelsTable(result: ChannelsResult): string {
  const { outbox } = result;
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('a Telegram chat (fake Bot API)', result.channel),
    '',
    `The channel path adds ${formatMs(median(result.channel.firstTokenMs) - median(result.page.firstTokenMs))} ms to the first token and ${formatMs(median(result.channel.wholeMs) - median(result.page.wholeMs))} ms to the whole reply (medians, interleaved samples).`,
    '',
    `Outbox against a Bot API throttling at ${outbox.limitPerSecond} messages/s: ${outbox.messages} messages in ${outbox.seconds.toFixed(2)} s = ${(outbox.messages / outbox.seconds).toFixed(1)}/s, ${outbox.throttled} answered 429, ${outbox.inOrder ? 'all in order' : 'OUT OF ORDER'}.`,
  ].join('\n');
}
