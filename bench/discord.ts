// The Discord channel, measured (issue 47), on the shared chat bench (chat-bench.ts) against the
// fake Discord (Gateway dispatch in, REST out):
//   path  — a DM against the same message from the page: the Discord path adds the Gateway
//           dispatch, discord.js's message handling, the binding and session look-ups, the outbox
//           and the REST call.
//   storm — N messages queued at once while the API answers 429 (retry_after 0.25 s) to every
//           fifth: how long all took, 429s received, and whether they arrived in order.
import { enqueueOutbox } from '@/lib/store/channels-repository';
import { startFakeDiscord } from '@/test/fakes/fake-discord-server';
import { added, interleaved, pathRow, PATH_HEADER, samplePath, startChatBench, whenFound, type PathSamples } from './chat-bench';

export interface DiscordResult {
  page: PathSamples;
  dm: PathSamples;
  storm: { messages: number; seconds: number; throttled: number; inOrder: boolean };
}

export async function benchDiscord(options: { samples: number; stormMessages: number }): Promise<DiscordResult> {
  const discord = await startFakeDiscord();
  const user = { id: '900000000000000077', username: 'bench' };
  const bench = await startChatBench({ kind: 'discord', config: { token: discord.token, api_root: discord.apiRoot }, pair: () => void discord.userWrites(user, 'let me in') });
  const result: DiscordResult = { page: { firstTokenMs: [], wholeMs: [] }, dm: { firstTokenMs: [], wholeMs: [] }, storm: { messages: options.stormMessages, seconds: 0, throttled: 0, inOrder: false } };
  const chat = {
    send: (text: string) => void discord.userWrites(user, text),
    arrived: (text: string) => whenFound(() => (discord.sent.some((message) => message.content.includes(`You said: ${text}`)) ? performance.now() : undefined)),
  };
  await interleaved(['page', 'dm'], options.samples, (via, index) => samplePath(bench, via, index, chat), (via, { first, whole }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
  });

  await bench.orchestrator.pauseSession(bench.sessionId);
  const callsBefore = discord.calls.length;
  const sentBefore = discord.sent.length;
  discord.rateLimitNext(Math.floor(options.stormMessages / 5), 0.25);
  const started = performance.now();
  for (let index = 0; index < options.stormMessages; index++) await enqueueOutbox({ channelId: bench.channelId, address: `user:${user.id}`, payload: { text: `queued ${index}` } });
  bench.orchestrator.channels!.wake(bench.channelId);
  const queued = () => discord.sent.slice(sentBefore).filter((message) => /^queued \d+$/.test(message.content));
  while (queued().length < options.stormMessages) await new Promise((resolve) => setTimeout(resolve, 20));
  result.storm.seconds = (performance.now() - started) / 1000;
  result.storm.throttled = discord.calls.slice(callsBefore).filter((call) => call.status === 429).length;
  result.storm.inOrder = queued().every((message, index) => message.content === `queued ${index}`);

  await bench.close();
  await discord.close();
  return result;
}

export function discordTable(result: DiscordResult): string {
  const { storm } = result;
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('a Discord DM (fake Gateway and REST)', result.dm),
    '',
    `The Discord path adds ${added(result.page, result.dm)}.`,
    '',
    `A 429 storm: ${storm.messages} messages queued at once, ${storm.throttled} answered 429 (retry_after 0.25 s), all delivered in ${storm.seconds.toFixed(2)} s, ${storm.inOrder ? 'in order, each once' : 'OUT OF ORDER'}.`,
  ].join('\n');
}
