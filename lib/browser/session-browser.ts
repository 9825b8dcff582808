// One session's browser (issue 45 §2, §5): its context's tabs (pop-ups become tabs), the active
// one, the dialogs it answered and the downloads it saved since the model last heard, the links its
// latest snapshot showed (a click on one of those does not send anything new out), and the person's
// take-over — while they drive, the agent's actions wait; their keystrokes go to the page only.
import fs from 'node:fs';
import type { BrowserContext, CDPSession, Download, Page } from 'playwright-core';
import type { Refusal } from './egress-proxy';
import { MAX_DOWNLOAD_BYTES } from './download-guard';
import { snapshotText, type PageSnapshot } from './page-snapshot';
import { errorText } from '@/lib/errors/error-text';

export interface SessionBrowserHooks {
  saveState(): Promise<void>;
  takeRefusals(): Refusal[];
  /** Why the download guard cancelled this download while it arrived, if it did. */
  downloadRefusal(url: string, name: string): string | undefined;
  closed(): void;
}

/** A frame of the live view: a JPEG of the active tab. */
export interface BrowserFrame {
  data: string;
  width: number;
  height: number;
  url: string;
}

const ACTION_TIMEOUT_MS = 15_000;
const MAX_TABS = 8;
const SAVE_DELAY_MS = 2_000;
/** Hosts the pages asked for, remembered to tell their refusals from the browser's own (bounded). */
const MAX_PAGE_HOSTS = 1_000;

/** `host:port` of a URL, default ports filled in ('' when it is not one). */
export function hostKey(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || ({ 'https:': '443', 'wss:': '443', 'http:': '80', 'ws:': '80' } as Record<string, string>)[parsed.protocol] || '';
    return `${parsed.hostname}:${port}`;
  } catch {
    return '';
  }
}

export class SessionBrowser {
  lastUsed = performance.now();
  private saveTimer: NodeJS.Timeout | null = null;
  private active = 0;
  private readonly notes: string[] = [];
  private readonly saved: string[] = [];
  private shownLinks = new Map<string, string>();
  private shownRefs = new Map<string, string>();
  /** Where this context's pages sent requests (and WebSockets): a refusal elsewhere was Chromium's own. */
  private readonly pageHosts = new Set<string>();
  /** Downloads being kept and pop-ups being noted: what the model hears waits for them. */
  private readonly pendingDownloads = new Set<Promise<void>>();
  /** Keeps a download in the session's workspace (set by the tools); returns its path there. */
  keepDownload: ((name: string, bytes: Buffer) => string) | null = null;
  takenOver = false;
  private giveBack: (() => void) | null = null;
  private handedBack: Promise<void> = Promise.resolve();
  watchers = 0;
  private screencast: { cdp: CDPSession; page: Page; stopLoad?: () => void } | null = null;
  private readonly loaded = (page: Page) => void this.pushFrame(page);
  private onFrame: ((frame: BrowserFrame) => void) | null = null;

  constructor(
    readonly sessionId: string,
    private readonly context: BrowserContext,
    private readonly hooks: SessionBrowserHooks,
  ) {
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    context.on('page', (page) => this.adopt(page));
    context.on('request', (request) => this.notePageHost(request.url()));
    for (const page of context.pages()) this.adopt(page);
  }

  private notePageHost(url: string): void {
    const key = hostKey(url);
    if (!key || this.pageHosts.has(key)) return;
    if (this.pageHosts.size >= MAX_PAGE_HOSTS) this.pageHosts.delete(this.pageHosts.values().next().value!);
    this.pageHosts.add(key);
  }

  private adopt(page: Page): void {
    page.on('websocket', (socket) => this.notePageHost(socket.url()));
    page.on('dialog', (dialog) => {
      this.notes.push(`Dialog (${dialog.type()}) said ${JSON.stringify(dialog.message().slice(0, 300))}; it was ${dialog.type() === 'confirm' || dialog.type() === 'prompt' ? 'accepted' : 'dismissed'}.`);
      void (dialog.type() === 'confirm' || dialog.type() === 'prompt' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
    });
    page.on('download', (download) => {
      const done = this.saveDownload(download).finally(() => this.pendingDownloads.delete(done));
      this.pendingDownloads.add(done);
    });
    page.on('close', () => {
      const pages = this.context.pages();
      if (this.active >= pages.length) this.active = Math.max(0, pages.length - 1);
    });
    const noted: Promise<void> = page
      .opener()
      .then(async (opener) => {
        if (!opener) return;
        const count = this.context.pages().length;
        if (count <= MAX_TABS) this.notes.push(`A pop-up opened as tab ${count} (browser_tabs switches to it).`);
        else await page.close().then(() => this.notes.push(`A pop-up was closed: at most ${MAX_TABS} tabs.`));
      })
      .catch(() => undefined)
      .finally(() => this.pendingDownloads.delete(noted));
    this.pendingDownloads.add(noted);
  }

  /** A finished download goes through the workspace's own writer (no link can send it elsewhere), then the browser's copy goes. */
  private async saveDownload(download: Download): Promise<void> {
    const name = download.suggestedFilename().replace(/[^\w.-]+/g, '_').replace(/^\.+/, '').slice(0, 120) || 'download';
    const keep = this.keepDownload;
    if (!keep) {
      await download.cancel();
      this.notes.push(`A download (${name}) was cancelled: no workspace to keep it in.`);
      return;
    }
    try {
      const file = await download.path();
      const size = fs.statSync(file).size;
      if (size > MAX_DOWNLOAD_BYTES) {
        this.notes.push(`A download (${name}, ${size} bytes) was dropped: more than ${MAX_DOWNLOAD_BYTES / 1024 / 1024} MB.`);
      } else {
        const kept = keep(name, fs.readFileSync(file));
        this.saved.push(`${kept} (${size} bytes, from ${new URL(download.url()).host})`);
      }
    } catch (error) {
      const refused = this.hooks.downloadRefusal(download.url(), download.suggestedFilename());
      this.notes.push(refused ? `A download (${name}) was cancelled while it arrived: ${refused}.` : `A download (${name}) failed: ${errorText(error)}`);
    } finally {
      await download.delete().catch(() => undefined);
    }
  }

  /** The active tab, a blank one made if none is open. */
  async page(): Promise<Page> {
    const pages = this.context.pages();
    if (pages.length === 0) {
      const page = await this.context.newPage();
      this.active = 0;
      return page;
    }
    return pages[Math.min(this.active, pages.length - 1)]!;
  }

  async newTab(): Promise<Page> {
    if (this.context.pages().length >= MAX_TABS) throw new Error(`At most ${MAX_TABS} tabs: close one first (browser_tabs).`);
    const page = await this.context.newPage();
    this.active = this.context.pages().indexOf(page);
    return page;
  }

  tabs(): { index: number; title: Promise<string>; url: string; active: boolean }[] {
    return this.context.pages().map((page, index) => ({ index: index + 1, title: page.title().catch(() => ''), url: page.url(), active: index === this.active }));
  }

  switchTo(index: number): void {
    const pages = this.context.pages();
    if (index < 1 || index > pages.length) throw new Error(`No tab ${index}: there ${pages.length === 1 ? 'is 1 tab' : `are ${pages.length} tabs`}.`);
    this.active = index - 1;
    void this.restartScreencast();
  }

  async closeTab(index: number): Promise<void> {
    const pages = this.context.pages();
    if (index < 1 || index > pages.length) throw new Error(`No tab ${index}.`);
    await pages[index - 1]!.close();
    this.active = Math.min(this.active, Math.max(0, this.context.pages().length - 1));
    void this.restartScreencast();
  }

  /** The active tab's snapshot, cut to the budget; its links are remembered for `linkShown`. */
  async snapshot(budgetTokens: number): Promise<PageSnapshot> {
    const snapshot = await snapshotText(await this.page(), budgetTokens);
    this.shownLinks = snapshot.links;
    this.shownRefs = snapshot.refs;
    return snapshot;
  }

  /** What a ref was in the latest snapshot ("textbox \"Search\""), for the card. */
  describeRef(ref: string): string | null {
    return this.shownRefs.get(ref) ?? null;
  }

  /** The URL a ref's link pointed to in the latest snapshot, if it was a link shown there. */
  linkShown(ref: string): string | null {
    return this.shownLinks.get(ref) ?? null;
  }

  /** Whether this URL was shown as a link by the latest snapshot. */
  urlShown(url: string): boolean {
    for (const shown of this.shownLinks.values()) if (shown === url) return true;
    return false;
  }

  /** What happened since the model last heard: dialogs, downloads, pop-ups, refused requests. */
  async news(): Promise<string[]> {
    await Promise.all([...this.pendingDownloads]);
    const lines = this.notes.splice(0);
    for (const saved of this.saved.splice(0)) lines.push(`Downloaded into the workspace: ${saved}.`);
    // Only what the pages asked for is the page's doing: Chromium's own requests (favicons, anything
    // it calls home for) are refused alike, logged, and never told to the model as the page's.
    for (const refusal of this.hooks.takeRefusals()) {
      if (!refusal.url.endsWith('/favicon.ico') && this.pageHosts.has(hostKey(refusal.url))) lines.push(`Refused: ${refusal.url} — ${refusal.reason}.`);
      else console.info(`[browser ${this.sessionId}] the browser's own request to ${refusal.url} was refused (${refusal.reason}); not the page's`);
    }
    return lines;
  }

  async saveState(): Promise<void> {
    clearTimeout(this.saveTimer ?? undefined);
    this.saveTimer = null;
    await this.hooks.saveState().catch((error: unknown) => console.error(`[browser ${this.sessionId}] state not saved`, error));
  }

  /** Saved within a couple of seconds of an action (and at once on close, take-back and shutdown): a sign-in survives a crash too. */
  saveSoon(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => void this.saveState(), SAVE_DELAY_MS);
    this.saveTimer.unref();
  }

  /** Waits while the person drives (the call's signal ends the wait). */
  async whileTakenOver(signal: AbortSignal): Promise<void> {
    if (!this.takenOver) return;
    await new Promise<void>((resolve, reject) => {
      const abort = () => reject(new Error('Cancelled while the person had the browser.'));
      signal.addEventListener('abort', abort, { once: true });
      void this.handedBack.then(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      });
    });
  }

  takeOver(): void {
    if (this.takenOver) return;
    this.takenOver = true;
    this.handedBack = new Promise((resolve) => (this.giveBack = resolve));
  }

  async handBack(): Promise<void> {
    if (!this.takenOver) return;
    this.takenOver = false;
    await this.saveState(); // what the person signed into is kept
    this.giveBack?.();
    this.giveBack = null;
  }

  /** The person's input while they drive: to the page only, never to logs or the model. */
  async input(event: { type: 'click'; x: number; y: number } | { type: 'text'; text: string } | { type: 'key'; key: string } | { type: 'scroll'; dy: number }): Promise<void> {
    if (!this.takenOver) throw new Error('Take over the browser first.');
    const page = await this.page();
    if (event.type === 'click') await page.mouse.click(event.x, event.y);
    else if (event.type === 'text') await page.keyboard.type(event.text);
    else if (event.type === 'key') await page.keyboard.press(event.key);
    else await page.mouse.wheel(0, event.dy);
    if (this.screencast) await this.pushFrame(page);
  }

  /** The tab as it is now, to the watchers. */
  private async pushFrame(page: Page): Promise<void> {
    if (!this.onFrame || this.watchers === 0) return;
    const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
    const now = await page.screenshot({ type: 'jpeg', quality: 60 }).catch(() => null);
    if (now) this.onFrame?.({ data: now.toString('base64'), width: viewport.width, height: viewport.height, url: page.url() });
  }

  /** Someone watches the live view: frames of the active tab go to `onFrame` while anyone does. */
  async watch(onFrame: (frame: BrowserFrame) => void): Promise<void> {
    this.watchers++;
    this.onFrame = onFrame;
    if (!this.screencast) await this.restartScreencast();
  }

  async unwatch(): Promise<void> {
    this.watchers = Math.max(0, this.watchers - 1);
    if (this.watchers === 0) await this.stopScreencast();
  }

  private async stopScreencast(): Promise<void> {
    const running = this.screencast;
    this.screencast = null;
    running?.stopLoad?.();
    if (running) await running.cdp.send('Page.stopScreencast').catch(() => undefined);
    await running?.cdp.detach().catch(() => undefined);
  }

  private async restartScreencast(): Promise<void> {
    if (this.watchers === 0 || !this.onFrame) return;
    await this.stopScreencast();
    const page = await this.page();
    const cdp = await this.context.newCDPSession(page);
    this.screencast = { cdp, page };
    cdp.on('Page.screencastFrame', (frame: { data: string; sessionId: number; metadata: { deviceWidth: number; deviceHeight: number } }) => {
      void cdp.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
      this.onFrame?.({ data: frame.data, width: frame.metadata.deviceWidth, height: frame.metadata.deviceHeight, url: page.url() });
    });
    // A few frames a second: every second frame Chromium paints, at most 1280 wide.
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 800, everyNthFrame: 2 });
    // Headless Chromium paints a still page only when it changes: the watcher gets the page as it is
    // now first, and again whenever a page loads in the tab.
    page.on('load', this.loaded);
    this.screencast.stopLoad = () => page.off('load', this.loaded);
    await this.pushFrame(page);
  }

  async close(): Promise<void> {
    await this.stopScreencast();
    this.giveBack?.();
    await this.saveState();
    await this.context.close().catch(() => undefined);
    this.hooks.closed();
  }
}
