// The session page's view of the agent's browser (issue 45 §5): a CDP screencast of the active tab,
// a few frames a second, running only while someone watches (counted per session across the app's
// sockets); its state (open, taken over, where) goes to the watchers whenever it changes.
import type { BrowserPool, BrowserState } from './browser-pool';
import type { BrowserFrame } from './session-browser';

export interface LiveViewSink {
  frame(sessionId: string, frame: BrowserFrame): void;
  state(sessionId: string, state: BrowserState): void;
}

export class LiveView {
  private readonly watchers = new Map<string, number>();
  /** Sessions whose browser streams to the view now. */
  private readonly streaming = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly pool: BrowserPool,
    private readonly sink: LiveViewSink,
  ) {
    this.unsubscribe = pool.onChange((sessionId) => void this.refresh(sessionId));
  }

  async watch(sessionId: string): Promise<void> {
    this.watchers.set(sessionId, (this.watchers.get(sessionId) ?? 0) + 1);
    await this.refresh(sessionId);
  }

  async unwatch(sessionId: string): Promise<void> {
    const left = (this.watchers.get(sessionId) ?? 1) - 1;
    if (left > 0) {
      this.watchers.set(sessionId, left);
      return;
    }
    this.watchers.delete(sessionId);
    if (this.streaming.delete(sessionId)) await (await this.pool.current(sessionId))?.unwatch();
  }

  close(): void {
    this.unsubscribe();
  }

  /** Sends the state; starts the stream when someone watches an open browser, forgets it when the browser closed. */
  private async refresh(sessionId: string): Promise<void> {
    if (!this.watchers.has(sessionId)) return;
    const state = await this.pool.state(sessionId);
    this.sink.state(sessionId, state);
    if (!state.open) {
      this.streaming.delete(sessionId);
      return;
    }
    if (this.streaming.has(sessionId)) return;
    const browser = await this.pool.current(sessionId);
    if (!browser) return;
    this.streaming.add(sessionId);
    let shownUrl = state.url;
    await browser
      .watch((frame) => {
        this.sink.frame(sessionId, frame);
        // The page moved on (a link, a form): the state the view shows follows.
        if (frame.url !== shownUrl) {
          shownUrl = frame.url;
          void this.pool.state(sessionId).then((now) => this.sink.state(sessionId, now));
        }
      })
      .catch((error: unknown) => {
      this.streaming.delete(sessionId);
      console.error(`[browser ${sessionId}] the live view could not start`, error);
    });
  }
}
