// One Chromium for the app, one isolated context per session (issue 45 §1, ARCHITECTURE §22): the
// browser starts with the first session that browses; a session's context keeps its cookies and
// storage in the app's data folder (data/browser/sessions/<id>.json, never in the workspace the
// sandbox reads), so a login survives a restart; a context quiet for `idleMs` is closed, and past
// `maxContexts` the least recently used goes first. Every context reaches the network only through
// the egress proxy, under its session's rules.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import type { Resolve } from '@/lib/security/pinned-fetch';
import { launchChromium } from './chromium-launch';
import { DownloadGuard } from './download-guard';
import { EgressProxy, type EgressRules } from './egress-proxy';
import { SessionBrowser } from './session-browser';

export interface BrowserPoolOptions {
  executablePath: string;
  /** data/browser: the launcher's files, downloads in flight, each session's saved state. */
  browserDir: string;
  maxContexts: number;
  idleMs: number;
  /** Host names → addresses for the egress checks (tests pass their own; nothing is dialled to decide). */
  resolve?: Resolve;
}

/** What the session page shows of a session's browser. */
export interface BrowserState {
  open: boolean;
  taken_over: boolean;
  url: string | null;
  tabs: number;
}

export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private downloads: DownloadGuard | null = null;
  private readonly proxy: EgressProxy;
  private readonly open = new Map<string, Promise<SessionBrowser>>();
  private readonly idle = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  /** Milliseconds the browser took to start the last time (a benchmark reads it). */
  coldStartMs: number | null = null;
  private readonly listeners = new Set<(sessionId: string) => void>();

  /** Calls `listener` when a session's browser opens, closes, is taken over or given back. */
  onChange(listener: (sessionId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(sessionId: string): void {
    for (const listener of this.listeners) listener(sessionId);
  }

  async state(sessionId: string): Promise<BrowserState> {
    const browser = await this.current(sessionId);
    if (!browser) return { open: false, taken_over: false, url: null, tabs: 0 };
    const tabs = browser.tabs();
    return { open: true, taken_over: browser.takenOver, url: tabs.find((tab) => tab.active)?.url ?? null, tabs: tabs.length };
  }

  constructor(private readonly options: BrowserPoolOptions) {
    this.proxy = new EgressProxy(options.resolve);
  }

  statePath(sessionId: string): string {
    return path.join(this.options.browserDir, 'sessions', `${sessionId}.json`);
  }

  /** The session's browser, opened (or reopened from its saved state) on first use. */
  session(sessionId: string, rules: EgressRules): Promise<SessionBrowser> {
    if (this.stopped) return Promise.reject(new Error('the browser is shut down'));
    let opening = this.open.get(sessionId);
    if (!opening) {
      opening = this.openSession(sessionId, rules);
      this.open.set(sessionId, opening);
      opening.catch(() => this.open.delete(sessionId));
    }
    return opening.then((browser) => {
      browser.lastUsed = performance.now();
      this.touch(sessionId);
      return browser;
    });
  }

  /** The session's browser if it is open now (the live view asks; nothing is started). */
  async current(sessionId: string): Promise<SessionBrowser | null> {
    const opening = this.open.get(sessionId);
    return opening ? opening.catch(() => null) : null;
  }

  openSessions(): string[] {
    return [...this.open.keys()];
  }

  /** Saves the session's state and closes its context. */
  async close(sessionId: string): Promise<void> {
    const opening = this.open.get(sessionId);
    this.open.delete(sessionId);
    clearTimeout(this.idle.get(sessionId));
    this.idle.delete(sessionId);
    if (!opening) return;
    const browser = await opening.catch(() => null);
    if (!browser) return;
    await browser.close();
    this.changed(sessionId);
  }

  /** Forgets a deleted session's saved state. */
  async forget(sessionId: string): Promise<void> {
    await this.close(sessionId);
    fs.rmSync(this.statePath(sessionId), { force: true });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
    const browser = this.browser;
    this.browser = null;
    if (browser) await (await browser.catch(() => null))?.close().catch(() => undefined);
    await this.proxy.stop();
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      const begun = performance.now();
      this.browser = launchChromium({ executablePath: this.options.executablePath, browserDir: this.options.browserDir }).then(async ({ browser, downloads }) => {
        this.coldStartMs = performance.now() - begun;
        const guard = await DownloadGuard.start(browser, downloads);
        this.downloads = guard;
        // A crash: the next use starts a new one; the open sessions are gone with it.
        browser.on('disconnected', () => {
          if (this.browser) this.browser = null;
          guard.close();
          if (this.downloads === guard) this.downloads = null;
          for (const id of this.open.keys()) void this.close(id);
        });
        return browser;
      });
      this.browser.catch(() => (this.browser = null));
    }
    return this.browser;
  }

  private async openSession(sessionId: string, rules: EgressRules): Promise<SessionBrowser> {
    await this.evictFor(sessionId);
    const [browser, proxyUrl] = await Promise.all([this.launch(), this.proxy.start()]);
    const credentials = this.proxy.register(rules);
    const saved = this.statePath(sessionId);
    let context: BrowserContext;
    try {
      context = await browser.newContext({
        // Loopback too goes through the proxy: Chromium's implicit bypass of it is removed.
        proxy: { server: proxyUrl, bypass: '<-loopback>', username: credentials.username, password: credentials.password },
        ...(fs.existsSync(saved) && { storageState: saved }),
        acceptDownloads: true,
        serviceWorkers: 'block',
        viewport: { width: 1280, height: 800 },
      });
    } catch (error) {
      this.proxy.unregister(credentials.username);
      throw error;
    }
    const guard = this.downloads;
    await guard?.watchContexts();
    const session = new SessionBrowser(sessionId, context, {
      saveState: async () => {
        fs.mkdirSync(path.dirname(saved), { recursive: true, mode: 0o700 });
        const state = await context.storageState();
        fs.writeFileSync(`${saved}.tmp`, JSON.stringify(state), { mode: 0o600 });
        fs.renameSync(`${saved}.tmp`, saved);
      },
      takeRefusals: () => this.proxy.takeRefusals(credentials.username),
      downloadRefusal: (url, name) => guard?.reasonFor(url, name),
      closed: () => this.proxy.unregister(credentials.username),
    });
    // Announced once it is in the map: a live view that asks finds it.
    queueMicrotask(() => this.changed(sessionId));
    return session;
  }

  /** Room for one more: the least recently used context goes first. */
  private async evictFor(sessionId: string): Promise<void> {
    const others = [...this.open.keys()].filter((id) => id !== sessionId);
    if (others.length < this.options.maxContexts) return;
    const used = await Promise.all(others.map(async (id) => ({ id, at: (await this.open.get(id)!.catch(() => null))?.lastUsed ?? 0 })));
    used.sort((a, b) => a.at - b.at);
    for (const { id } of used.slice(0, others.length - this.options.maxContexts + 1)) await this.close(id);
  }

  private touch(sessionId: string): void {
    clearTimeout(this.idle.get(sessionId));
    const timer = setTimeout(() => void this.closeIfQuiet(sessionId), this.options.idleMs);
    timer.unref();
    this.idle.set(sessionId, timer);
  }

  private async closeIfQuiet(sessionId: string): Promise<void> {
    const browser = await this.current(sessionId);
    // A person watching or driving keeps it open.
    if (browser && (browser.watchers > 0 || browser.takenOver)) return this.touch(sessionId);
    await this.close(sessionId);
  }
}
