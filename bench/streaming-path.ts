// The whole reply path, measured side by side against the same fake model in one run:
//   direct — the official openai SDK streaming straight from the fake (the floor: no app at all);
//   ours   — our production server through the real mind: the message goes out as the session
//            page sends it (`send-message` on its socket, acknowledged once stored) or as a
//            script would (POST /api/sessions/:id/messages); reply tokens arrive as `reply-delta`
//            on a socket.io-client (the library the session page runs);
//            Or through the OpenAI-compatible door (issue 46): the openai SDK streaming from
//            /v1/chat/completions with a key, to the same session (metadata.session_id);
//   peer   — the Vercel AI SDK's `streamText` in a Next route handler (bench/ai-sdk-peer, its own
//            production build), read as the UI message stream `useChat` reads.
// Each sample times the first reply token (from the client's request to the token's arrival) and
// each token's forwarding delay (from the fake writing it to the client receiving it; the fake
// and the clients run in this process, one clock). The three paths take turns sample by sample.
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '../lib/realtime/socket-events';
import { spawnServer, type SpawnedServer } from '../e2e/support/spawn-server';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server';
import { formatMs, median, percentile } from './stats';

export const paths = ['direct', 'ours-socket', 'ours-rest', 'ours-door', 'peer'] as const;
export type PathName = (typeof paths)[number];

export interface PathSamples {
  firstTokenMs: number[];
  /** From the client's request to the model receiving the call: the path's share of the first token. */
  toModelMs: number[];
  tokenDelayMs: number[];
}

export interface StreamingResult {
  firstDeltaDelayMs: number;
  tokensPerSecond: number;
  tokensPerReply: number;
  byPath: Record<PathName, PathSamples>;
  /** The same paths with this many other sessions cycling continuously in our server meanwhile. */
  byLoad: { busySessions: number; cyclesPerSecond: number; byPath: Record<PathName, PathSamples> }[];
}

const peerDir = path.resolve('bench/ai-sdk-peer');
// Tokens look like a real model's: a leading space, one word each (` w1`, ` w2`, …).
const tokenPattern = /w\d+/g;

/** Notes when each complete token first shows in a growing text. */
class TokenArrivals {
  private text = '';
  readonly at = new Map<string, number>();

  add(piece: string): void {
    const now = performance.now();
    this.text += piece;
    // Paths forward whole deltas (or several at once), never part of a token.
    for (const match of this.text.matchAll(tokenPattern)) if (!this.at.has(match[0])) this.at.set(match[0], now);
  }
}

/** Subconscious cycles the busy sessions have stored so far (their mind state's cycle numbers). */
async function countCycles(base: string, sessionIds: string[]): Promise<number> {
  let total = 0;
  for (const id of sessionIds) {
    const detail = (await (await fetch(`${base}/api/sessions/${id}`)).json()) as { mind?: { cycle?: number } | null };
    total += detail.mind?.cycle ?? 0;
  }
  return total;
}

async function waitForPeer(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error('the AI SDK peer exited before it was ready');
    const up = await fetch(url, { method: 'HEAD' }).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the AI SDK peer did not start');
}

export async function benchStreamingPath(options: {
  samples: number;
  tokensPerReply: number;
  tokensPerSecond: number;
  firstDeltaDelayMs: number;
  ports: { ours: number; peer: number; background?: number };
  /**
   * Busy sessions beside the measured one, one measurement each (default [0]): they cycle
   * continuously (the seed's literal loop) against a second fake in its own process that answers
   * at once — the heaviest load a session can put on the server. The peer streams beside them on
   * the same two cores.
   */
  loads?: number[];
  /** Samples per path at each load after the first (default: `samples`). */
  loadSamples?: number;
}): Promise<StreamingResult> {
  const telemetryOff = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  if (!fs.existsSync('.next/BUILD_ID')) execSync('npx next build', { stdio: 'ignore', env: telemetryOff });
  if (!fs.existsSync(path.join(peerDir, '.next/BUILD_ID'))) execSync(`npx next build ${peerDir}`, { stdio: 'ignore', env: telemetryOff });

  const tokens = Array.from({ length: options.tokensPerReply }, (_, index) => ` w${index + 1}`);
  const written = new Map<string, number>();
  let modelCalledAt = Number.NaN;
  const fake = await startFakeOpenAIServer({
    chunkDelayMs: 1000 / options.tokensPerSecond,
    firstDeltaDelayMs: options.firstDeltaDelayMs,
    onDelta: (text) => {
      if (/^ w\d+$/.test(text)) written.set(text.trim(), performance.now());
    },
    script: (request) => {
      if (request.system.includes('You are the Subconscious')) {
        return { text: '<S_loud></S_loud><S_quiet>quiet</S_quiet><M_AND_C><mood>calm</mood><criteria>brief</criteria></M_AND_C><trigger>false</trigger>' };
      }
      modelCalledAt = performance.now();
      return { text: '', chunks: ['<ID_loud>', ...tokens, '.</ID_loud><ID_quiet>done</ID_quiet>'] };
    },
  });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-streaming-'));
  let ours: SpawnedServer | undefined;
  let peer: ChildProcess | undefined;
  let socket: Socket<ServerToClientEvents, ClientToServerEvents> | undefined;
  let background: ChildProcess | undefined;
  try {
    ours = await spawnServer({ root, port: options.ports.ours });
    const base = `http://127.0.0.1:${options.ports.ours}`;
    peer = spawn(process.execPath, [path.resolve('node_modules/next/dist/bin/next'), 'start', peerDir, '-p', String(options.ports.peer), '-H', '127.0.0.1'], {
      env: { ...telemetryOff, FAKE_OPENAI_URL: fake.url, NODE_ENV: 'production' },
      stdio: 'ignore',
    });
    const peerUrl = `http://127.0.0.1:${options.ports.peer}/api/chat`;
    await waitForPeer(peerUrl, peer);

    const post = async (url: string, body: unknown) => {
      const response = await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<{ session: { id: string } }>;
    };
    const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 1024, endpoint: `${fake.url}/v1` });
    const sessionId = (await post('/api/sessions', { persona: 'iris', name: 'Streaming bench', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } })).session.id;

    socket = io(base, { transports: ['websocket'], extraHeaders: { origin: base } }) as Socket<ServerToClientEvents, ClientToServerEvents>;
    const live = socket;
    await new Promise<void>((resolve) => live.emit('join', { sessionId }, () => resolve()));
    let onReply: ((text: string) => void) | undefined;
    let onTurnEnd: (() => void) | undefined;
    live.on('reply-delta', (event) => onReply?.(event.text));
    live.on('turn-end', () => onTurnEnd?.());

    const viaOurServer = async (arrivals: TokenArrivals, send: () => Promise<unknown>) => {
      const ended = new Promise<void>((resolve) => (onTurnEnd = resolve));
      onReply = (piece) => arrivals.add(piece);
      await send();
      await ended;
      onReply = undefined;
    };
    const sdk = new OpenAI({ apiKey: 'bench', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const made = (await post('/api/keys', { name: 'bench', personas: ['iris'] })) as unknown as { key: { secret: string } };
    const door = new OpenAI({ apiKey: made.key.secret, baseURL: `${base}/v1`, maxRetries: 0 });
    const lastToken = tokens.at(-1)!.trim();
    const run: Record<PathName, (text: string, arrivals: TokenArrivals) => Promise<void>> = {
      direct: async (text, arrivals) => {
        const stream = await sdk.chat.completions.create({
          model: 'fake-large',
          messages: [
            { role: 'system', content: 'You are a benchmark peer.' },
            { role: 'user', content: text },
          ],
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const chunk of stream) {
          const content = chunk.choices[0]?.delta?.content;
          if (content) arrivals.add(content);
        }
      },
      'ours-socket': (text, arrivals) =>
        viaOurServer(arrivals, async () => {
          const ack = await live.emitWithAck('send-message', { sessionId, text });
          if (!ack.ok) throw new Error(ack.error.message);
        }),
      'ours-rest': (text, arrivals) => viaOurServer(arrivals, () => post(`/api/sessions/${sessionId}/messages`, { text })),
      'ours-door': async (text, arrivals) => {
        const ended = new Promise<void>((resolve) => (onTurnEnd = resolve));
        const stream = await door.chat.completions.create({ model: 'persona/iris', messages: [{ role: 'user', content: text }], stream: true, metadata: { session_id: sessionId } });
        for await (const chunk of stream) {
          const content = chunk.choices[0]?.delta?.content;
          if (content) arrivals.add(content);
        }
        await ended; // the turn stored, as the other paths wait for it
        onTurnEnd = undefined;
      },
      peer: async (text, arrivals) => {
        const response = await fetch(peerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: text }) });
        const decoder = new TextDecoder();
        let pending = '';
        const reader = response.body!.getReader();
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          pending += decoder.decode(read.value, { stream: true });
          let end: number;
          while ((end = pending.indexOf('\n\n')) !== -1) {
            const line = pending.slice(0, end);
            pending = pending.slice(end + 2);
            if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
            const part = JSON.parse(line.slice(6)) as { type: string; delta?: string };
            if (part.type === 'text-delta' && part.delta) arrivals.add(part.delta);
          }
        }
      },
    };

    const byPath = Object.fromEntries(paths.map((name) => [name, { firstTokenMs: [], toModelMs: [], tokenDelayMs: [] }])) as unknown as Record<PathName, PathSamples>;
    const sample = async (name: PathName, index: number, record: boolean) => {
      written.clear();
      modelCalledAt = Number.NaN;
      const arrivals = new TokenArrivals();
      const started = performance.now();
      await run[name](`${name} sample ${index}`, arrivals);
      if (!arrivals.at.has(lastToken)) throw new Error(`${name}: the reply did not arrive whole`);
      if (!record) return;
      byPath[name].firstTokenMs.push(arrivals.at.get('w1')! - started);
      byPath[name].toModelMs.push(modelCalledAt - started);
      for (const [token, at] of arrivals.at) byPath[name].tokenDelayMs.push(at - written.get(token)!);
    };
    const measure = async (samples: number) => {
      for (const name of paths) Object.assign(byPath[name], { firstTokenMs: [], toModelMs: [], tokenDelayMs: [] });
      for (let warm = 0; warm < 5; warm++) for (const name of paths) await sample(name, -warm, false);
      for (let index = 0; index < samples; index++) {
        // Rotate the order so no path always follows the same one.
        const order = paths.map((_, offset) => paths[(index + offset) % paths.length]!);
        for (const name of order) await sample(name, index, true);
      }
      return structuredClone(byPath);
    };

    const loads = options.loads ?? [0];
    const byLoad: StreamingResult['byLoad'] = [];
    const busy: string[] = [];
    let backgroundUrl = '';
    for (const [position, load] of loads.entries()) {
      if (load > 0 && !background) {
        const backgroundPort = options.ports.background ?? options.ports.peer + 1;
        background = spawn(process.execPath, ['--import', 'tsx', 'test/fakes/run-fake-openai-server.ts', String(backgroundPort)], {
          env: { ...process.env, FAKE_LLM_CHUNK_DELAY_MS: '0' },
          stdio: 'ignore',
        });
        backgroundUrl = `http://127.0.0.1:${backgroundPort}`;
        await waitForPeer(`${backgroundUrl}/v1/models`, background);
      }
      const instant = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 256, endpoint: `${backgroundUrl}/v1` });
      while (busy.length < load) {
        const created = await post('/api/sessions', { persona: 'iris', name: `Busy ${busy.length + 1}`, models: { c_model: instant('fake-large'), s_model: instant('fake-small') }, params: { pacing: 'continuous' } });
        busy.push(created.session.id);
      }
      const cyclesBefore = await countCycles(base, busy);
      const startedAt = performance.now();
      const measured = await measure(position === 0 ? options.samples : (options.loadSamples ?? options.samples));
      const cyclesPerSecond = ((await countCycles(base, busy)) - cyclesBefore) / ((performance.now() - startedAt) / 1000);
      byLoad.push({ busySessions: load, cyclesPerSecond, byPath: measured });
    }
    for (const id of busy) await fetch(`${base}/api/sessions/${id}/pause`, { method: 'POST', headers: { origin: base } });
    return { firstDeltaDelayMs: options.firstDeltaDelayMs, tokensPerSecond: options.tokensPerSecond, tokensPerReply: options.tokensPerReply, byPath: byLoad[0]!.byPath, byLoad };
  } finally {
    socket?.close();
    if (peer && peer.exitCode === null) {
      const exited = new Promise((resolve) => peer!.once('exit', resolve));
      peer.kill('SIGTERM');
      await exited;
    }
    if (ours) {
      ours.child.kill('SIGTERM');
      await ours.exited;
    }
    if (background && background.exitCode === null) {
      const exited = new Promise((resolve) => background!.once('exit', resolve));
      background.kill('SIGTERM');
      await exited;
    }
    await fake.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export function streamingTable(result: StreamingResult): string {
  const { direct, peer } = result.byPath;
  const ours = result.byPath['ours-socket'];
  const row = (what: string, samples: PathSamples) =>
    `| ${what} | ${samples.firstTokenMs.length} | ${formatMs(median(samples.firstTokenMs))} | ${formatMs(percentile(samples.firstTokenMs, 99))} | ${formatMs(median(samples.toModelMs))} | ${formatMs(median(samples.firstTokenMs) - median(direct.firstTokenMs))} | ${(median(samples.firstTokenMs) / median(direct.firstTokenMs)).toFixed(3)}× | ${samples.tokenDelayMs.length} | ${formatMs(median(samples.tokenDelayMs))} | ${formatMs(percentile(samples.tokenDelayMs, 99))} |`;
  return [
    `Fake model: first token after ${result.firstDeltaDelayMs} ms, then ${result.tokensPerSecond} tokens/s, ${result.tokensPerReply} tokens per reply.`,
    '',
    '| path | replies | first token median ms | first token p99 ms | request → model call median ms | added vs direct (median) ms | ratio to direct | tokens | token delay median ms | token delay p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    row('direct openai SDK call (floor)', direct),
    row('ours: socket send-message → mind → Socket.IO client (the session page)', ours),
    row('ours: REST POST → mind → Socket.IO client (scripts)', result.byPath['ours-rest']),
    row('ours: OpenAI door, openai SDK streaming /v1/chat/completions', result.byPath['ours-door']),
    row('peer: AI SDK streamText route → UI message stream', peer),
    '',
    `The door against the page's path: first token +${formatMs(median(result.byPath['ours-door'].firstTokenMs) - median(ours.firstTokenMs))} ms (median), ${formatMs(percentile(result.byPath['ours-door'].firstTokenMs, 99) - percentile(ours.firstTokenMs, 99))} ms (p99).`,
    `Ours (the page's path) against the AI SDK peer: first token ${(median(ours.firstTokenMs) / median(peer.firstTokenMs)).toFixed(3)}× (median), token delay p99 ${formatMs(percentile(ours.tokenDelayMs, 99))} vs ${formatMs(percentile(peer.tokenDelayMs, 99))} ms.`,
  ].join('\n');
}

/** Token delay and first token with other sessions cycling in the same server, beside the peer. */
export function loadTable(result: StreamingResult): string {
  const rows = result.byLoad.map(({ busySessions, cyclesPerSecond, byPath }) => {
    const ours = byPath['ours-socket'];
    const { direct, peer } = byPath;
    return `| ${busySessions} | ${cyclesPerSecond.toFixed(0)} | ${ours.firstTokenMs.length} | ${formatMs(median(ours.firstTokenMs))} | ${(median(ours.firstTokenMs) / median(direct.firstTokenMs)).toFixed(3)}× | ${formatMs(median(ours.toModelMs))} | ${formatMs(median(ours.tokenDelayMs))} | ${formatMs(percentile(ours.tokenDelayMs, 99))} | ${formatMs(median(peer.tokenDelayMs))} | ${formatMs(percentile(peer.tokenDelayMs, 99))} | ${formatMs(percentile(direct.tokenDelayMs, 99))} |`;
  });
  return [
    '| busy sessions | their cycles/s | replies per path | ours first token median ms | ours ÷ direct (first token) | ours request → model call median ms | ours token delay median ms | ours token delay p99 ms | peer token delay median ms | peer token delay p99 ms | direct token delay p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
