// The session page in a real browser (Debian's Chromium through Playwright) against the
// production server: time to open a page with 10,000 stored messages versus an empty one
// (interleaved), and the delay from a reply token leaving our server (the reply-delta event's
// `at`) to the browser painting it, at 200 tokens/s from the fake OpenAI-compatible server.
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { io } from 'socket.io-client';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server';
import { seedChat } from '../test/support/seed-chat';
import { formatMs, median, percentile } from './stats';

const port = 3310;
const base = `http://127.0.0.1:${port}`;
const chromiumPath = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? (fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

/** A server left on the port would answer in place of ours. */
async function assertPortFree(): Promise<void> {
  const answered = await fetch(`${base}/api/health`).then(
    () => true,
    () => false,
  );
  if (answered) throw new Error(`port ${port} is already taken: stop what runs there first`);
}

async function waitForHealth(): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not start');
}

async function post<T>(url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify(body ?? {}) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export interface BrowserResult {
  openEmptyMs: number[];
  openFullMs: number[];
  tokenToPaintMs: number[];
}

export async function benchBrowser(options: { openSamples: number; turns: number; tokensPerTurn: number }): Promise<BrowserResult> {
  if (!fs.existsSync('.next/BUILD_ID')) execSync('npx next build', { stdio: 'ignore' });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-browser-'));
  fs.cpSync('personas', path.join(root, 'personas'), { recursive: true });
  const tokens = (count: number) => Array.from({ length: count }, (_, index) => `w${index + 1}`);
  const fake = await startFakeOpenAIServer({
    chunkDelayMs: 5, // 200 tokens/s
    script: (request) =>
      request.system.includes('You are the Subconscious')
        ? { text: '<S_loud></S_loud><S_quiet>quiet</S_quiet><M_AND_C><mood>calm</mood><criteria>brief</criteria></M_AND_C><trigger>false</trigger>' }
        : { text: '', chunks: ['<ID_loud>', ...tokens(options.tokensPerTurn).map((token) => `${token} `), '</ID_loud><ID_quiet>done</ID_quiet>'] },
  });
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  try {
    await assertPortFree();
    // Its own process group, so the whole tree (npx → tsx → node) goes when the bench ends.
    server = spawn('npx', ['tsx', 'server.ts'], {
      detached: true,
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', AGENTCSD_DATA_DIR: path.join(root, 'data'), AGENTCSD_PERSONAS_DIR: path.join(root, 'personas') },
      stdio: 'ignore',
    });
    await waitForHealth();
    const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 4096, endpoint: `${fake.url}/v1` });
    const models = { c_model: layer('fake-large'), s_model: layer('fake-small') };
    const create = async (name: string) => (await post<{ session: { id: string } }>('/api/sessions', { persona: 'iris', name, models })).session.id;
    const empty = await create('Empty');
    const full = await create('Full');
    await post(`/api/sessions/${empty}/pause`);
    await post(`/api/sessions/${full}/pause`);
    seedChat({ databaseFile: path.join(root, 'data', 'agentcsd.db'), sessionId: empty, count: 1 });
    seedChat({ databaseFile: path.join(root, 'data', 'agentcsd.db'), sessionId: full, count: 10_000 });

    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const result: BrowserResult = { openEmptyMs: [], openFullMs: [], tokenToPaintMs: [] };
    const open = async (id: string, newest: string) => {
      const started = performance.now();
      await page.goto(`${base}/sessions/${id}`);
      await page.getByText(newest).first().waitFor();
      return performance.now() - started;
    };
    await open(empty, 'Message 0'); // warm-up: code loaded, connections open
    await open(full, 'Message 9999');
    for (let sample = 0; sample < options.openSamples; sample++) {
      const order = sample % 2 === 0 ? (['empty', 'full'] as const) : (['full', 'empty'] as const);
      for (const which of order) {
        if (which === 'empty') result.openEmptyMs.push(await open(empty, 'Message 0'));
        else result.openFullMs.push(await open(full, 'Message 9999'));
      }
    }

    // Token to paint: the page records when each token first shows (a frame after the DOM change);
    // a socket.io client beside it records when the server emitted it.
    const live = await create('Live');
    await page.goto(`${base}/sessions/${live}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const watcher = io(base, { transports: ['websocket'], extraHeaders: { origin: base } });
    const emittedAt = new Map<string, number>();
    let buffer = '';
    watcher.on('reply-delta', (event: { text: string; at: string }) => {
      buffer += event.text;
      for (const match of buffer.matchAll(/w\d+ /g)) if (!emittedAt.has(match[0].trim())) emittedAt.set(match[0].trim(), Date.parse(event.at));
    });
    watcher.on('turn-end', () => (buffer = ''));
    await new Promise<void>((resolve) => watcher.emit('join', { sessionId: live }, () => resolve()));
    for (let turn = 0; turn < options.turns; turn++) {
      emittedAt.clear();
      await page.evaluate(() => {
        const seen = new Map<string, number>();
        (window as unknown as { paintTimes: Map<string, number> }).paintTimes = seen;
        const observer = new MutationObserver(() => {
          const text = document.querySelector('[aria-label="Agent (replying)"]')?.textContent ?? '';
          const fresh = [...text.matchAll(/w\d+/g)].map((match) => match[0]).filter((token) => !seen.has(token));
          if (fresh.length) requestAnimationFrame(() => fresh.forEach((token) => seen.has(token) || seen.set(token, Date.now())));
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      await post(`/api/sessions/${live}/messages`, { text: `turn ${turn}` });
      await page.getByText(`w${options.tokensPerTurn}`, { exact: false }).last().waitFor();
      await page.waitForFunction(() => !document.querySelector('[aria-label="Agent (replying)"]'));
      const painted = new Map<string, number>(await page.evaluate(() => [...(window as unknown as { paintTimes: Map<string, number> }).paintTimes.entries()]));
      for (const [token, at] of emittedAt) {
        const paintedAt = painted.get(token);
        if (paintedAt !== undefined) result.tokenToPaintMs.push(paintedAt - at);
      }
    }
    watcher.close();
    return result;
  } finally {
    await browser?.close();
    if (server?.pid) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      process.kill(-server.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    }
    await fake.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export function browserTable(result: BrowserResult): string {
  return [
    '| measure | samples | median ms | p99 ms |',
    '|---|---|---|---|',
    `| open session page, 1 stored message | ${result.openEmptyMs.length} | ${formatMs(median(result.openEmptyMs))} | ${formatMs(percentile(result.openEmptyMs, 99))} |`,
    `| open session page, 10,000 stored messages | ${result.openFullMs.length} | ${formatMs(median(result.openFullMs))} | ${formatMs(percentile(result.openFullMs, 99))} |`,
    `| reply token: server emit → painted (200 tokens/s) | ${result.tokenToPaintMs.length} | ${formatMs(median(result.tokenToPaintMs))} | ${formatMs(percentile(result.tokenToPaintMs, 99))} |`,
    '',
    `Ratio of open medians (10,000 / 1): ${(median(result.openFullMs) / median(result.openEmptyMs)).toFixed(2)}×.`,
  ].join('\n');
}
