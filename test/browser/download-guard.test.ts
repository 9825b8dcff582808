// Red-team round 4, §2: a download is cancelled while its bytes arrive, never written in full and
// measured after. The real Chromium (through the launcher the app uses), a site on loopback that
// streams files and counts what it sent, and the guard with small caps so the test moves few bytes:
// one file past its cap, one that declares too much, and three at once past what all may hold.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '@/lib/browser/chromium-launch';
import { DownloadGuard } from '@/lib/browser/download-guard';

const MB = 1024 * 1024;
const LIMITS = { each: 10 * MB, together: 20 * MB };
let browser: Browser;
let guard: DownloadGuard;
let downloads: string;
let site: http.Server;
let origin = '';
/** Bytes the site sent per path when its response ended or the browser hung up. */
const sent = new Map<string, number>();

beforeAll(async () => {
  // /file/<MB>/<ms per MB>[/unsized | /stall<N>]: that many MB, a MB at a time, paced; the size
  // declared unless unsized; with stall<N>, only N MB are sent and the response then waits.
  site = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    if (url.pathname === '/') {
      response.setHeader('content-type', 'text/html');
      return response.end('<p>files</p>');
    }
    const [, , size, pace, mode] = url.pathname.split('/');
    const total = Number(size) * MB;
    const stallAt = mode?.startsWith('stall') ? Number(mode.slice(5)) * MB : Infinity;
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${url.pathname.split('/').join('_')}.bin"`, ...(mode !== 'unsized' && { 'content-length': String(total) }) });
    let written = 0;
    const chunk = Buffer.alloc(MB, 7);
    const timer = setInterval(() => {
      if (written >= stallAt) return;
      if (written >= total) return clearInterval(timer), response.end();
      response.write(chunk);
      written += MB;
    }, Number(pace));
    response.on('close', () => (clearInterval(timer), sent.set(url.pathname, written)));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  ({ browser, downloads } = await launchChromium({ executablePath: process.env.AGENTCSD_CHROMIUM_PATH ?? '/usr/bin/chromium', browserDir: fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-guard-')) }));
  guard = await DownloadGuard.start(browser, downloads, LIMITS);
}, 60_000);

afterAll(async () => {
  guard?.close();
  await browser?.close();
  site?.close();
});

async function page(): Promise<Page> {
  const context = await browser.newContext({ acceptDownloads: true });
  await guard.watchContexts();
  const tab = await context.newPage();
  await tab.goto(`${origin}/`);
  return tab;
}

/** Starts a download of `file` from the page and waits for its end: the saved size, or why it stopped. */
async function download(tab: Page, file: string): Promise<{ size?: number; failure?: string | null; reason?: string }> {
  const [started] = await Promise.all([tab.waitForEvent('download'), tab.evaluate((href) => Object.assign(document.createElement('a'), { href, download: '' }).click(), `${origin}${file}`)]);
  const saved = await started.path().catch(() => null);
  const outcome = saved ? { size: fs.statSync(saved).size } : { failure: await started.failure(), reason: guard.reasonFor(started.url(), started.suggestedFilename()) };
  await started.delete().catch(() => undefined);
  return outcome;
}

describe('the download guard', () => {
  it('lets a download under its cap through whole', async () => {
    expect(await download(await page(), '/file/3/5')).toEqual({ size: 3 * MB });
  }, 30_000);

  it('cancels a download while its bytes arrive, as it passes its cap — the rest is never sent', async () => {
    const outcome = await download(await page(), '/file/60/40/unsized');
    expect(outcome).toMatchObject({ failure: 'canceled', reason: 'it passed 10 MB' });
    await expect.poll(() => sent.get('/file/60/40/unsized')).toBeDefined();
    expect(sent.get('/file/60/40/unsized')!).toBeLessThan(30 * MB); // cancelled near 10 MB, never all 60
  }, 30_000);

  it('cancels one that declares more than its cap when Chromium first reports its size, though little has arrived', async () => {
    // 60 MB declared, 2 MB sent, then nothing: only the declared size can end it.
    const outcome = await download(await page(), '/file/60/50/stall2');
    expect(outcome).toMatchObject({ failure: 'canceled', reason: 'it declares 60 MB, more than 10 MB' });
    await expect.poll(() => sent.get('/file/60/50/stall2')).toBeDefined();
    expect(sent.get('/file/60/50/stall2')!).toBeLessThanOrEqual(2 * MB);
  }, 30_000);

  it('bounds what all downloads hold at once: the one that grows past the sum is cancelled, the others finish', async () => {
    // Each from a tab of its own (one page starting several downloads is Chromium's own question).
    const tab = await page();
    const tabs = [tab, await tab.context().newPage(), await tab.context().newPage()];
    await Promise.all(tabs.slice(1).map((other) => other.goto(`${origin}/`)));
    const outcomes = await Promise.all(['a', 'b', 'c'].map((name, index) => download(tabs[index]!, `/file/9/150/unsized?${name}`)));
    const cancelled = outcomes.filter((outcome) => outcome.failure === 'canceled');
    expect(cancelled.length).toBeGreaterThanOrEqual(1);
    expect(cancelled.every((outcome) => outcome.reason === "the browser's downloads together passed 20 MB")).toBe(true);
    expect(outcomes.filter((outcome) => outcome.size === 9 * MB).length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => guard.inFlightBytes()).toBe(0);
  }, 40_000);
});
