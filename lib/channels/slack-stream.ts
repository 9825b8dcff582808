// A reply streamed into a Slack thread as the Internal Dialog writes it (issue 62 §5), with
// Slack's chat streaming: chat.startStream at the first words (so the first token shows at once),
// then chat.appendStream at most every quarter second with what came meanwhile, and
// chat.stopStream when the turn ends. A workspace without streaming refuses the start: nothing is
// shown, and the outbox posts the reply whole — as it does when the stream breaks before the end.
import type { WebClient } from '@slack/web-api';
import type { ReplyStream } from './channel-types';

const APPEND_EVERY_MS = 250;

/** `markdown_text` as Slack reads it: the three characters of its markup escaped, so no `<!channel>` comes from a model. */
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface StreamOutcome {
  /** The streamed message, or null when it is not all there (the outbox posts the reply instead). */
  ts: string | null;
  text: string;
}

export class SlackReplyStream implements ReplyStream {
  private text = '';
  private shown = 0;
  private ts: string | null = null;
  private broken = false;
  private started = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private work: Promise<void> = Promise.resolve();
  private settle!: (outcome: StreamOutcome) => void;
  readonly outcome = new Promise<StreamOutcome>((resolve) => (this.settle = resolve));

  constructor(
    private readonly web: WebClient,
    private readonly channel: string,
    private readonly threadTs: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  isClosed(): boolean {
    return this.closed;
  }

  append(text: string): void {
    if (this.closed || this.broken) return;
    this.text += text;
    if (!this.started) {
      this.started = true;
      this.queue(() => this.start());
    } else this.timer ??= setTimeout(() => {
      this.timer = null;
      this.queue(() => this.flush());
    }, APPEND_EVERY_MS);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.queue(() => this.stop());
    void this.work.then(() => this.settle({ ts: this.broken ? null : this.ts, text: this.text }));
  }

  private queue(step: () => Promise<void>): void {
    this.work = this.work.then(step).catch((error: unknown) => {
      this.broken = true;
      this.onError(error);
    });
  }

  private async start(): Promise<void> {
    const first = this.text;
    const started = await this.web.chat.startStream({ channel: this.channel, thread_ts: this.threadTs, markdown_text: escape(first) });
    this.ts = started.ts ?? null;
    this.shown = first.length;
    if (!this.ts) this.broken = true;
  }

  private async flush(): Promise<void> {
    if (this.broken || !this.ts || this.shown >= this.text.length) return;
    const part = this.text.slice(this.shown);
    await this.web.chat.appendStream({ channel: this.channel, ts: this.ts, markdown_text: escape(part) });
    this.shown += part.length;
  }

  private async stop(): Promise<void> {
    if (this.broken || !this.ts) return;
    const rest = this.text.slice(this.shown);
    await this.web.chat.stopStream({ channel: this.channel, ts: this.ts, ...(rest && { markdown_text: escape(rest) }) });
    this.shown = this.text.length;
  }
}
