// Replies streamed to the chats that asked for them (issue 62 §5). Before a chat's message goes to
// its session, the channel says where an answer to it would stream (`expect`); the message's
// `message-persisted` event names its id, and the turn that starts answering it opens the chat's
// stream at once — all synchronously on the bus, no store read between the model's first token and
// the chat. The reply's words go there as they come, and the stream closes when the turn ends. The
// outbox still gets the whole reply (channel-outbound.ts): the adapter sends nothing twice when the
// stream showed those words, and posts it whole when it did not.
import type { OrchestratorEvent } from '@/lib/mind/events';
import type { ReplyStream } from './channel-types';

/** An expected message not seen within this is forgotten (its session refused it). */
const EXPECT_MS = 60_000;
const MAX_WAITING = 200;

interface Target {
  channelId: string;
  address: string;
}

export class ReplyStreams {
  private expected: (Target & { sessionId: string; content: string; at: number })[] = [];
  /** A chat's message (by id) and where its answer streams. */
  private readonly fromChat = new Map<number, Target>();
  private readonly turns = new Map<string, ReplyStream[]>();

  constructor(private readonly open: (target: Target) => ReplyStream | null) {}

  /** A chat's message is about to reach its session: an answer to it streams to `address`. */
  expect(target: Target & { sessionId: string; content: string }): void {
    const now = Date.now();
    this.expected = this.expected.filter((waiting) => now - waiting.at < EXPECT_MS).slice(-MAX_WAITING);
    this.expected.push({ ...target, at: now });
  }

  /** Decided synchronously: a reply's deltas cost a map lookup only while a streamed turn runs. */
  wants(event: OrchestratorEvent): boolean {
    switch (event.type) {
      case 'message-persisted':
        return this.expected.length > 0;
      case 'turn-start':
        return this.fromChat.size > 0;
      case 'reply-delta':
      case 'turn-end':
        return this.turns.size > 0;
      default:
        return false;
    }
  }

  take(event: OrchestratorEvent): void {
    if (event.type === 'message-persisted') {
      const index = this.expected.findIndex((waiting) => waiting.sessionId === event.sessionId && event.message.tag === 'ED_user' && event.message.content.startsWith(waiting.content));
      if (index < 0) return;
      const [waiting] = this.expected.splice(index, 1);
      if (this.fromChat.size >= MAX_WAITING) this.fromChat.delete(this.fromChat.keys().next().value!);
      this.fromChat.set(event.message.id, { channelId: waiting!.channelId, address: waiting!.address });
      return;
    }
    if (event.type === 'turn-start') {
      const targets = event.answering.flatMap((id) => {
        const target = this.fromChat.get(id);
        this.fromChat.delete(id);
        return target ? [target] : [];
      });
      const unique = [...new Map(targets.map((target) => [`${target.channelId}\n${target.address}`, target])).values()];
      const streams = unique.map((target) => this.open(target)).filter((stream): stream is ReplyStream => stream !== null);
      if (streams.length > 0) this.turns.set(`${event.sessionId}:${event.turnId}`, streams);
      return;
    }
    if (event.type !== 'reply-delta' && event.type !== 'turn-end') return;
    const key = `${event.sessionId}:${event.turnId}`;
    const streams = this.turns.get(key);
    if (!streams) return;
    if (event.type === 'reply-delta') {
      for (const stream of streams) stream.append(event.text);
      return;
    }
    this.turns.delete(key);
    for (const stream of streams) stream.close();
  }
}
