// The streaming router for the Internal Dialog's output: ID_loud deltas go to the chat as they
// arrive, ID_quiet deltas only to the Internal panel. Text before any tag is held back: if the
// whole output turns out untagged it becomes ID_loud at the end (ARCHITECTURE §4), otherwise it
// is dropped. Quiet text can never reach the loud channel: the routing is by tag, not by trust.
import { SectionParser, type SectionDelta } from './section-parser';

export type RoutedDelta = { channel: 'loud' | 'quiet'; text: string };

export class ReplyRouter {
  private readonly parser = new SectionParser([['ID_loud', 'ID_quiet']]);
  private outside = '';

  push(chunk: string): RoutedDelta[] {
    return this.route(this.parser.push(chunk));
  }

  end(): RoutedDelta[] {
    const routed = this.route(this.parser.end());
    if (!this.parser.sawTrackedTag && this.outside) routed.push({ channel: 'loud', text: this.outside });
    return routed;
  }

  private route(deltas: SectionDelta[]): RoutedDelta[] {
    const routed: RoutedDelta[] = [];
    for (const delta of deltas) {
      if (delta.section === 'ID_loud') routed.push({ channel: 'loud', text: delta.text });
      else if (delta.section === 'ID_quiet') routed.push({ channel: 'quiet', text: delta.text });
      else if (delta.section === 'outside' && !this.parser.sawTrackedTag) this.outside += delta.text;
    }
    return routed;
  }
}

export function parseInternalDialogOutput(text: string): { loud: string; quiet: string } {
  const router = new ReplyRouter();
  const result = { loud: '', quiet: '' };
  for (const delta of [...router.push(text), ...router.end()]) result[delta.channel] += delta.text;
  return result;
}
