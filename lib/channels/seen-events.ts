// The ids of the events a channel finished (Slack's envelopes, WhatsApp's message ids), newest last
// and kept across restarts with the channel's offsets: a provider that hands one over again after
// a crash or a slow acknowledgement finds it here, and it is handled once.
import { readOffset, writeOffset } from '@/lib/store/channels-repository';

const SEEN_KEPT = 500;

export class SeenEvents {
  private ids: string[] | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly key: string) {}

  async has(id: string): Promise<boolean> {
    this.ids ??= JSON.parse((await readOffset(this.key)) ?? '[]') as string[];
    return this.ids.includes(id);
  }

  async add(id: string): Promise<void> {
    await this.has(id);
    this.ids!.push(id);
    if (this.ids!.length > SEEN_KEPT) this.ids!.splice(0, this.ids!.length - SEEN_KEPT);
    const snapshot = JSON.stringify(this.ids);
    this.writing = this.writing.then(() => writeOffset(this.key, snapshot));
    await this.writing;
  }
}
