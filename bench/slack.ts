// The Slack channel, measured (issue 62), on the shared chat bench (chat-bench.ts) against the fake
// Slack (Socket Mode envelopes in, the Web API out), in the AI side panel's thread where replies
// stream:
//   path — a message in the thread against the same message from the page: the first reply token on
//          the bus for both, and for Slack also when the first words reached Slack
//          (chat.startStream at the fake) — what the person sees; the whole reply (stopStream).
import { startFakeSlack } from '@/test/fakes/fake-slack-server';
import { formatMs, median, percentile } from './stats';
import { added, interleaved, pathRow, PATH_HEADER, samplePath, startChatBench, whenFound, type PathSamples } from './chat-bench';

export interface SlackResult {
  page: PathSamples;
  thread: PathSamples;
  /** From sending to the first words at Slack (chat.startStream answered), per Slack sample. */
  firstAtSlackMs: number[];
}

export async function benchSlack(options: { samples: number }): Promise<SlackResult> {
  const slack = await startFakeSlack();
  const user = { id: 'U0BENCH0001', name: 'bench' };
  const bench = await startChatBench({ kind: 'slack', config: { app_token: slack.appToken, bot_token: slack.botToken, api_root: slack.apiRoot }, pair: () => void slack.userDMs(user, 'let me in') });
  const thread = slack.openThread(user);
  const result: SlackResult = { page: { firstTokenMs: [], wholeMs: [] }, thread: { firstTokenMs: [], wholeMs: [] }, firstAtSlackMs: [] };
  const chat = {
    send: (text: string) => void slack.userDMs(user, text, { thread_ts: thread }),
    arrived: (text: string) => whenFound(() => (slack.posted.some((message) => message.thread_ts === thread && message.streaming === false && message.text.includes(`You said: ${text}`)) ? performance.now() : undefined)),
    after: async (startedAt: number) => slack.calls.find((call) => call.method === 'chat.startStream' && call.status === 200 && call.at >= startedAt)!.at - startedAt,
  };
  await interleaved(['page', 'thread'], options.samples, (via, index) => samplePath(bench, via, index, chat), (via, { first, whole, extra }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
    if (via === 'thread' && extra !== undefined) result.firstAtSlackMs.push(extra);
  });
  await bench.close();
  await slack.close();
  return result;
}

export function slackTable(result: SlackResult): string {
  const atSlack = median(result.firstAtSlackMs) - median(result.page.firstTokenMs);
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('Slack’s side panel (fake Socket Mode and Web API, streamed)', result.thread),
    '',
    `The Slack path adds ${added(result.page, result.thread)}. The first words reach Slack (chat.startStream answered) ${formatMs(median(result.firstAtSlackMs))} ms after sending (p99 ${formatMs(percentile(result.firstAtSlackMs, 99))} ms): **${formatMs(atSlack)} ms** after the page's first token on the bus.`,
  ].join('\n');
}
