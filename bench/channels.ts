// Telegram, measured (issue 28), on the shared chat bench (chat-bench.ts) against the fake Bot API:
//   path     — a message from a paired Telegram chat against the same from the page: the channel
//              path adds the long poll's answer, the binding and session look-ups, the outbox row,
//              formatting and the sendMessage call.
//   outbox   — 300 messages queued at once to a chat against a Bot API that throttles at 30
//              messages a second (429 retry_after 1 beyond it, as Telegram does): delivered per
//              second, 429s received, and whether they arrived in order.
import { enqueueOutbox } from '@/lib/store/channels-repository';
import { startFakeTelegram } from '@/test/fakes/fake-telegram-server';
import { added, interleaved, pathRow, PATH_HEADER, samplePath, startChatBench, whenFound, type PathSamples } from './chat-bench';

export interface ChannelsResult {
  samples: number;
  page: PathSamples;
  channel: PathSamples;
  outbox: { messages: number; seconds: number; throttled: number; inOrder: boolean; limitPerSecond: number };
}

export async function benchChannels(options: { samples: number; outboxMessages: number }): Promise<ChannelsResult> {
  const telegram = await startFakeTelegram();
  const user = { id: 5150, username: 'bench' };
  const bench = await startChatBench({ kind: 'telegram', config: { token: telegram.token, api_root: telegram.apiRoot }, pair: () => void telegram.userWrites(user, 'let me in') });
  const result: ChannelsResult = {
    samples: options.samples,
    page: { firstTokenMs: [], wholeMs: [] },
    channel: { firstTokenMs: [], wholeMs: [] },
    outbox: { messages: options.outboxMessages, seconds: 0, throttled: 0, inOrder: false, limitPerSecond: 30 },
  };
  const chat = {
    send: (text: string) => void telegram.userWrites(user, text),
    arrived: (text: string) => whenFound(() => (telegram.sent.some((message) => message.chatId === String(user.id) && message.text.includes(`You said: ${text}`)) ? performance.now() : undefined)),
  };
  await interleaved(['page', 'channel'], options.samples, (via, index) => samplePath(bench, via, index, chat), (via, { first, whole }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
  });

  // The outbox against a throttling Bot API.
  await bench.orchestrator.pauseSession(bench.sessionId);
  telegram.throttle(result.outbox.limitPerSecond);
  const callsBefore = telegram.calls.length;
  const sentBefore = telegram.sent.length;
  const started = performance.now();
  for (let index = 0; index < options.outboxMessages; index++) await enqueueOutbox({ channelId: bench.channelId, address: String(user.id), payload: { text: `queued ${index}` } });
  bench.orchestrator.channels!.wake(bench.channelId);
  const queued = () => telegram.sent.slice(sentBefore).filter((message) => /^queued \d+$/.test(message.text));
  while (queued().length < options.outboxMessages) await new Promise((resolve) => setTimeout(resolve, 20));
  result.outbox.seconds = (performance.now() - started) / 1000;
  result.outbox.throttled = telegram.calls.slice(callsBefore).filter((call) => call.status === 429).length;
  result.outbox.inOrder = queued().every((message, index) => message.text === `queued ${index}`);

  await bench.close();
  await telegram.close();
  return result;
}

export function channelsTable(result: ChannelsResult): string {
  const { outbox } = result;
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('a Telegram chat (fake Bot API)', result.channel),
    '',
    `The channel path adds ${added(result.page, result.channel)}.`,
    '',
    `Outbox against a Bot API throttling at ${outbox.limitPerSecond} messages/s: ${outbox.messages} messages in ${outbox.seconds.toFixed(2)} s = ${(outbox.messages / outbox.seconds).toFixed(1)}/s, ${outbox.throttled} answered 429, ${outbox.inOrder ? 'all in order' : 'OUT OF ORDER'}.`,
  ].join('\n');
}
