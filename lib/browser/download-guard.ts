// What a page may download (issue 59 §2): a download is cancelled while its bytes arrive, the
// moment it passes its cap — never written in full and measured after. Chromium tells each
// download's start and its declared size (Content-Length, in its first progress report) to every
// DevTools session that asked for download events, and writes the bytes to `<guid>.crdownload` in
// the browser's downloads folder: the guard asks for the events beside Playwright (the same
// behaviour, so Playwright's own downloads go on as before), watches that folder's files grow, and
// cancels through DevTools — one download past its cap, or the newest growing one while all of the
// browser's downloads together hold more than theirs. Playwright then reports the download
// cancelled; the session's browser tells the model why (`reasonFor`).
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, CDPSession } from 'playwright-core';

/** The largest file a page may download. */
export const MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;
/** What all of a browser's downloads in flight may hold on disk at once. */
export const MAX_DOWNLOADS_IN_FLIGHT_BYTES = 120 * 1024 * 1024;

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

interface InFlight {
  url: string;
  name: string;
  bytes: number;
  cancelled: boolean;
}

export class DownloadGuard {
  private readonly inFlight = new Map<string, InFlight>();
  /** Why a download was cancelled, by its URL and file name (what Playwright's download shows). */
  private readonly reasons = new Map<string, string>();
  private readonly contexts = new Set<string>();
  private readonly watcher: fs.FSWatcher;

  private constructor(
    private readonly cdp: CDPSession,
    private readonly folder: string,
    private readonly limits: { each: number; together: number },
  ) {
    this.cdp.on('Browser.downloadWillBegin', (event) => this.inFlight.set(event.guid, { url: event.url, name: event.suggestedFilename, bytes: 0, cancelled: false }));
    this.cdp.on('Browser.downloadProgress', (event) => {
      const download = this.inFlight.get(event.guid);
      if (!download) return;
      if (event.state !== 'inProgress') return void this.inFlight.delete(event.guid);
      if (event.totalBytes > this.limits.each) this.cancel(event.guid, `it declares ${megabytes(event.totalBytes)}, more than ${megabytes(this.limits.each)}`);
    });
    // Every write to a file in the folder: its size now, and the sum of all downloads in flight.
    this.watcher = fs.watch(folder, (_event, file) => {
      if (file) this.measure(String(file));
    });
    this.watcher.on('error', () => undefined);
  }

  static async start(browser: Browser, folder: string, limits = { each: MAX_DOWNLOAD_BYTES, together: MAX_DOWNLOADS_IN_FLIGHT_BYTES }): Promise<DownloadGuard> {
    return new DownloadGuard(await browser.newBrowserCDPSession(), folder, limits);
  }

  /**
   * Asks for the download events of every context the browser has now (call it after making one).
   * The behaviour is the one Playwright set for a context that accepts downloads; only the events are new.
   */
  async watchContexts(): Promise<void> {
    const { browserContextIds } = await this.cdp.send('Target.getBrowserContexts');
    for (const id of browserContextIds.filter((id) => !this.contexts.has(id))) {
      await this.cdp.send('Browser.setDownloadBehavior', { behavior: 'allowAndName', browserContextId: id, downloadPath: this.folder, eventsEnabled: true });
    }
    this.contexts.clear();
    for (const id of browserContextIds) this.contexts.add(id);
  }

  /** Why the download of this URL and file was cancelled, if the guard cancelled it (asked once). */
  reasonFor(url: string, name: string): string | undefined {
    const key = `${url}\n${name}`;
    const reason = this.reasons.get(key);
    this.reasons.delete(key);
    return reason;
  }

  close(): void {
    this.watcher.close();
    void this.cdp.detach().catch(() => undefined);
    fs.rmSync(this.folder, { recursive: true, force: true });
  }

  private measure(file: string): void {
    const guid = file.replace(/\.crdownload$/, '');
    const download = this.inFlight.get(guid);
    if (!download || download.cancelled) return;
    try {
      download.bytes = fs.statSync(path.join(this.folder, file)).size;
    } catch {
      return; // renamed when it finished, or removed
    }
    if (download.bytes > this.limits.each) return this.cancel(guid, `it passed ${megabytes(this.limits.each)}`);
    if (this.inFlightBytes() > this.limits.together) this.cancel(guid, `the browser's downloads together passed ${megabytes(this.limits.together)}`);
  }

  private cancel(guid: string, reason: string): void {
    const download = this.inFlight.get(guid);
    if (!download || download.cancelled) return;
    download.cancelled = true;
    this.reasons.set(`${download.url}\n${download.name}`, reason);
    // The download's context is not in its events: the one it belongs to accepts the cancel.
    for (const browserContextId of this.contexts) void this.cdp.send('Browser.cancelDownload', { guid, browserContextId }).catch(() => undefined);
  }

  /** What the guard knows now (a test reads it). */
  inFlightBytes(): number {
    return [...this.inFlight.values()].reduce((sum, download) => sum + (download.cancelled ? 0 : download.bytes), 0);
  }
}
