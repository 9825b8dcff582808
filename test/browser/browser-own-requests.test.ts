// Red-team round 4, §6: Chromium's own requests (a call home, a favicon) pass the same egress proxy
// and are refused alike, but the model must never hear that the *page* was refused. The session's
// browser tells them apart by what its pages asked for. The real Chromium; the proxy's refusals
// given through the session browser's hook, as the pool's proxy would hand them over.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '@/lib/browser/chromium-launch';
import type { Refusal } from '@/lib/browser/egress-proxy';
import { hostKey, SessionBrowser } from '@/lib/browser/session-browser';

let browser: Browser;
let site: http.Server;
let origin = '';

beforeAll(async () => {
  site = http.createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(request.url === '/' ? '<h1>Home</h1><script>fetch("/data").catch(() => {})</script>' : 'data');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  ({ browser } = await launchChromium({ executablePath: process.env.AGENTCSD_CHROMIUM_PATH ?? '/usr/bin/chromium', browserDir: fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-own-')) }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
});

describe("the browser's own requests", () => {
  it('are never reported to the model as the page\'s; what the page asked for is', async () => {
    const refusals: Refusal[] = [];
    const session = new SessionBrowser('own', await browser.newContext(), { saveState: async () => undefined, takeRefusals: () => refusals.splice(0), downloadRefusal: () => undefined, closed: () => undefined });
    const page = await session.page();
    await page.goto(`${origin}/`);
    await page.waitForLoadState('networkidle');
    const at = Date.now();
    refusals.push(
      { url: 'https://www.google.com:443/', reason: 'www.google.com is not among the allowed hosts', at }, // Chromium calling home
      { url: `${origin}/data`, reason: 'a test refusal of the page\'s own fetch', at },
      { url: `${origin}/favicon.ico`, reason: 'a favicon', at },
    );
    const news = await session.news();
    expect(news).toEqual([`Refused: ${origin}/data — a test refusal of the page's own fetch.`]);
    await session.close();
  }, 30_000);

  it('keys hosts with their default ports, so a tunnel and a URL meet', () => {
    expect(hostKey('https://example.org/a')).toBe('example.org:443');
    expect(hostKey('https://example.org:443/')).toBe('example.org:443');
    expect(hostKey('wss://example.org/socket')).toBe('example.org:443');
    expect(hostKey('http://127.0.0.1:8080/x')).toBe('127.0.0.1:8080');
    expect(hostKey('not a url')).toBe('');
  });
});
