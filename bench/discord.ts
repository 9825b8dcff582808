// The Discord channel, measured (issue 47), in one process: discord.js against the fake Discord on
// loopback (Gateway dispatch in, REST out), the fake model streaming at a fixed pace, the real
// orchestrator and store:
//   path  — the same message sent into one session from the page's entry and as a DM, interleaved:
//           first reply token on the bus, and the whole reply (turn end on the page; the reply's
//           POST at the fake Discord). The difference is the Gateway dispatch, discord.js's
//           message handling, the binding and session look-ups, the outbox and the REST call.
//   storm — N messages queued at once while the API answers 429 (retry_after 0.25 s) to every
//           fifth: delivered per second, 429s received, and whether they arrived in order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { enqueueOutbox, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeDiscord } from '@/test/fakes/fake-discord-server';
import { mindScript } from '@/test/fakes/mind-script';
import { busWaiter, interleaved, pathRow, PATH_HEADER } from './channels';
import { formatMs, median } from './stats';

export interface DiscordResult {
  page: { firstTokenMs: number[]; wholeMs: number[] };
  dm: { firstTokenMs: number[]; wholeMs: number[] };
  storm: { messages: number; seconds: number; throttled: number; inOrder: boolean };
}

export async function benchDiscord(options: { samples: number; stormMessages: number }): Promise<DiscordResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-discord-'));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  const [model, discord] = await Promise.all([startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 5, firstDeltaDelayMs: 50 }), startFakeDiscord()]);
  const channelId = randomUUID();
  const input = channelInputSchema.parse({ id: channelId, kind: 'discord', name: 'bench', config: { token: discord.token, api_root: discord.apiRoot } });
  await saveChannel({ id: channelId, kind: 'discord', name: 'bench', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
  const orchestrator = new Orchestrator({ channels: true });
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { pacing: 'adaptive' } });
  while ((await orchestrator.channels!.status(channelId)).state.kind !== 'connected') await new Promise((resolve) => setTimeout(resolve, 20));
  const user = { id: '900000000000000077', username: 'bench' };
  discord.userWrites(user, 'let me in');
  while ((await listOpenPairings(channelId, new Date())).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const [pairing] = await listOpenPairings(channelId, new Date());
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id }));

  const next = busWaiter(orchestrator, session.id);
  const delivered = (text: string) =>
    new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        const hit = discord.sent.find((message) => message.content.includes(text));
        if (!hit) return;
        clearInterval(poll);
        resolve(hit.at);
      }, 1);
    });
  const sample = async (via: 'page' | 'dm', index: number) => {
    const text = `sample ${via} ${index} ${randomUUID().slice(0, 8)}`;
    const firstToken = next((event) => (event.type === 'reply-delta' ? performance.now() : undefined));
    const turnEnd = next((event) => (event.type === 'turn-end' ? performance.now() : undefined));
    const wallStart = Date.now();
    const started = performance.now();
    if (via === 'page') await orchestrator.sendUserMessage(session.id, { text });
    else discord.userWrites(user, text);
    const first = (await firstToken) - started;
    const whole = via === 'page' ? (await turnEnd) - started : (await delivered(`You said: ${text}`)) - wallStart;
    await turnEnd;
    return { first, whole };
  };
  const result: DiscordResult = { page: { firstTokenMs: [], wholeMs: [] }, dm: { firstTokenMs: [], wholeMs: [] }, storm: { messages: options.stormMessages, seconds: 0, throttled: 0, inOrder: false } };
  await interleaved(['page', 'dm'], options.samples, sample, (via, { first, whole }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
  });

  await orchestrator.pauseSession(session.id);
  const callsBefore = discord.calls.length;
  const sentBefore = discord.sent.length;
  discord.rateLimitNext(Math.floor(options.stormMessages / 5), 0.25);
  const started = performance.now();
  for (let index = 0; index < options.stormMessages; index++) await enqueueOutbox({ channelId, address: `user:${user.id}`, payload: { text: `queued ${index}` } });
  orchestrator.channels!.wake(channelId);
  const queued = () => discord.sent.slice(sentBefore).filter((message) => /^queued \d+$/.test(message.content));
  while (queued().length < options.stormMessages) await new Promise((resolve) => setTimeout(resolve, 20));
  result.storm.seconds = (performance.now() - started) / 1000;
  result.storm.throttled = discord.calls.slice(callsBefore).filter((call) => call.status === 429).length;
  result.storm.inOrder = queued().every((message, index) => message.content === `queued ${index}`);

  await orchestrator.stop();
  await discord.close();
  await model.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}

export function discordTable(result: DiscordResult): string {
  const { storm } = result;
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('a Discord DM (fake Gateway and REST)', result.dm),
    '',
    `The Discord path adds ${formatMs(median(result.dm.firstTokenMs) - median(result.page.firstTokenMs))} ms to the first token and ${formatMs(median(result.dm.wholeMs) - median(result.page.wholeMs))} ms to the whole reply (medians, interleaved samples).`,
    '',
    `A 429 storm: ${storm.messages} messages queued at once, ${storm.throttled} answered 429 (retry_after 0.25 s), all delivered in ${storm.seconds.toFixed(2)} s, ${storm.inOrder ? 'in order, each once' : 'OUT OF ORDER'}.`,
  ].join('\n');
}
