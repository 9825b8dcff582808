// The agent's browser (issue 45): open → snapshot of a local page through the browser_open tool
// (pool, egress proxy, snapshot, saved state) against the same steps written directly with
// Playwright on the same Chromium, alternated in one run; the browser's cold start; the resident
// memory of Chromium's processes with 1, 5 and 20 sessions each holding a page.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BrowserPool } from '@/lib/browser/browser-pool';
import { launchChromium } from '@/lib/browser/chromium-launch';
import { browserTools } from '@/lib/tools/browser-tools';
import type { ToolRunContext } from '@/lib/tools/tool-types';
import { formatMs, median, percentile } from './stats';

export interface AgentBrowserResult {
  tool: number[];
  direct: number[];
  coldStartMs: number;
  memory: { sessions: number; chromiumMiB: number }[];
}

const PAGE = `<!doctype html><title>Figures</title><h1>Quarterly figures</h1>${Array.from({ length: 40 }, (_, index) => `<p>Line ${index + 1} of the report, with <a href="/p${index}">a link</a>.</p>`).join('')}<form><input aria-label="Search"><button>Go</button></form>`;

/** Proportional set size of every Chromium process (the browser, its renderers, GPU and utility processes): shared pages counted once. */
function chromiumPssMiB(): number {
  const out = execFileSync('ps', ['-eo', 'pid=,comm='], { encoding: 'utf8' });
  let kib = 0;
  for (const line of out.split('\n')) {
    const [pid, comm] = line.trim().split(/\s+/, 2);
    if (!comm || !/chrom/i.test(comm)) continue;
    try {
      kib += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kib / 1024;
}

export async function benchAgentBrowser(options: { samples: number; executablePath?: string }): Promise<AgentBrowserResult> {
  const executablePath = options.executablePath ?? process.env.AGENTCSD_CHROMIUM_PATH ?? '/usr/bin/chromium';
  const site = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-browser-'));
  const pool = new BrowserPool({ executablePath, browserDir: path.join(scratch, 'browser'), maxContexts: 25, idleMs: 600_000 });
  const workspace = path.join(scratch, 'workspace');
  fs.mkdirSync(workspace);
  const context: ToolRunContext = { sessionId: 'bench', workspaceDir: workspace, signal: new AbortController().signal };
  const open = browserTools({ allowed_hosts: [host] }, pool, 'bench').find((tool) => tool.definition.name === 'browser_open')!;
  const { browser: direct } = await launchChromium({ executablePath, browserDir: path.join(scratch, 'direct') });
  const directPage = await (await direct.newContext()).newPage();
  const result: AgentBrowserResult = { tool: [], direct: [], coldStartMs: 0, memory: [] };
  try {
    const warm = await open.run({ url: `http://${host}/warm` }, context);
    if (warm.isError) throw new Error(warm.content);
    result.coldStartMs = pool.coldStartMs ?? 0;
    await directPage.goto(`http://${host}/warm`);
    for (let index = 0; index < options.samples; index++) {
      let begun = performance.now();
      const outcome = await open.run({ url: `http://${host}/t${index}` }, context);
      result.tool.push(performance.now() - begun);
      if (outcome.isError) throw new Error(outcome.content);
      begun = performance.now();
      await directPage.goto(`http://${host}/d${index}`, { waitUntil: 'domcontentloaded' });
      await directPage.waitForLoadState('load');
      await directPage.ariaSnapshot({ mode: 'ai' });
      result.direct.push(performance.now() - begun);
    }
    await direct.close();
    await pool.close('bench');
    for (const sessions of [1, 5, 20]) {
      for (let index = 0; index < sessions; index++) {
        const tool = browserTools({ allowed_hosts: [host] }, pool, `s${sessions}-${index}`).find((candidate) => candidate.definition.name === 'browser_open')!;
        const outcome = await tool.run({ url: `http://${host}/m${index}` }, { ...context, sessionId: `s${sessions}-${index}` });
        if (outcome.isError) throw new Error(outcome.content);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      result.memory.push({ sessions, chromiumMiB: chromiumPssMiB() });
      for (let index = 0; index < sessions; index++) await pool.close(`s${sessions}-${index}`);
    }
  } finally {
    await pool.stop();
    await direct.close().catch(() => undefined);
    site.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return result;
}

export function agentBrowserTable(result: AgentBrowserResult): string {
  const ratio = median(result.tool) / median(result.direct);
  return [
    '| measure | median | p99 |',
    '| --- | --- | --- |',
    `| open → snapshot, browser_open (proxy, news, snapshot) | ${formatMs(median(result.tool))} | ${formatMs(percentile(result.tool, 99))} |`,
    `| open → snapshot, Playwright directly | ${formatMs(median(result.direct))} | ${formatMs(percentile(result.direct, 99))} |`,
    `| ratio of medians | ${ratio.toFixed(2)}× | |`,
    `| cold start of the browser | ${formatMs(result.coldStartMs)} | |`,
    ...result.memory.map((row) => `| Chromium's memory (PSS), ${row.sessions} session${row.sessions === 1 ? '' : 's'} holding a page | ${row.chromiumMiB.toFixed(0)} MiB | |`),
  ].join('\n');
}
