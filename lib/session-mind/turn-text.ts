// What an Internal Dialog turn says as it streams: the reply router sends ID_loud to the chat and
// ID_quiet to the Internal panel, each kept whole here; after a tool step, each channel's first
// words start a new paragraph.
import { ReplyRouter, type RoutedDelta } from '@/lib/mind/tags/reply-router';

export class TurnText {
  loud = '';
  quiet = '';
  private router = new ReplyRouter();
  private readonly stepStart = { loud: false, quiet: false };

  constructor(private readonly onDelta: (delta: RoutedDelta) => void) {}

  /** The model's words as they arrive. */
  push(text: string): void {
    this.route(this.router.push(text));
  }

  /** The reply is finished: what the router held back is said (untagged output becomes ID_loud). */
  end(): void {
    this.route(this.router.end());
  }

  /** A tool step ended: its words are flushed, and the next step's start new paragraphs. */
  stepEnd(): void {
    this.end();
    this.router = new ReplyRouter();
    this.stepStart.loud = this.stepStart.quiet = true;
  }

  private route(deltas: RoutedDelta[]): void {
    for (const routed of deltas) {
      let delta = routed;
      if (this.stepStart[delta.channel] && delta.text.trim()) {
        this.stepStart[delta.channel] = false;
        if ((delta.channel === 'loud' ? this.loud : this.quiet).trim()) delta = { ...delta, text: `\n\n${delta.text.trimStart()}` };
      }
      if (delta.channel === 'loud') this.loud += delta.text;
      else this.quiet += delta.text;
      this.onDelta(delta);
    }
  }
}
