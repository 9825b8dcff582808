// Slack's Socket Mode under Bolt, acknowledging an event only once it is recorded (issue 62 §4).
// Bolt's own SocketModeReceiver acknowledges an Events API envelope before any listener runs, so a
// crash mid-event would lose it; here the envelope is acknowledged after Bolt's listeners finished
// (the message stored in its session), and a listener that fails leaves it unacknowledged — Slack
// hands it over again. A handed-over-again event is handled once: one already running here is
// waited for, one finished before a crash is known by its id (the last few hundred, kept with the
// channel's offsets).
import { SocketModeClient } from '@slack/socket-mode';
import { LogLevel, type App, type Logger, type Receiver } from '@slack/bolt';
import { SeenEvents } from './seen-events';

/** Bolt's and the Socket Mode client's log lines, warnings and errors only, with the tokens taken out. */
export function quietLogger(scrub: (text: string) => string): Logger {
  const line = (parts: unknown[]) => scrub(parts.map((part) => (part instanceof Error ? part.message : String(part))).join(' '));
  return {
    debug: () => {},
    info: () => {},
    warn: (...parts: unknown[]) => console.warn(`[channels] slack: ${line(parts)}`),
    error: (...parts: unknown[]) => console.error(`[channels] slack: ${line(parts)}`),
    setLevel: () => {},
    getLevel: () => LogLevel.WARN,
    setName: () => {},
  };
}

interface SocketEvent {
  ack(response?: Record<string, unknown>): Promise<void>;
  type: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export class AckAfterReceiver implements Receiver {
  readonly client: SocketModeClient;
  private app: App | null = null;
  private readonly running = new Map<string, Promise<void>>();
  private readonly seen: SeenEvents;

  constructor(options: { channelId: string; appToken: string; apiRoot: string; logger: Logger; onState(state: ConnectionState, reason?: string): void }) {
    this.seen = new SeenEvents(`${options.channelId}:slack-events`);
    this.client = new SocketModeClient({ appToken: options.appToken, logger: options.logger, clientOptions: { slackApiUrl: options.apiRoot } });
    this.client.on('slack_event', (event: SocketEvent) => void this.onEvent(event).catch((error: unknown) => options.logger.error('event not handled (Slack hands it over again):', error)));
    this.client.on('connected', () => options.onState('connected'));
    this.client.on('reconnecting', () => options.onState('reconnecting', 'reconnecting to Slack'));
    this.client.on('disconnected', () => options.onState('disconnected'));
  }

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<unknown> {
    return this.client.start();
  }

  stop(): Promise<unknown> {
    return this.client.disconnect();
  }

  private async onEvent(event: SocketEvent): Promise<void> {
    const app = this.app!;
    if (event.type !== 'events_api') {
      // A button or a slash command: Slack never hands it over again; the listener acknowledges it (Slack waits 3 s).
      return app.processEvent({ body: event.body, ack: (response?: Record<string, unknown>) => event.ack(response) });
    }
    const id = String(event.body.event_id ?? '');
    // Without an id (Slack always sends one) an envelope is handled as it comes, never matched to another.
    if (!id) {
      await app.processEvent({ body: event.body, ack: async () => {} });
      return event.ack();
    }
    const before = this.running.get(id);
    if (before) {
      // Handed over again while the first delivery is still being handled: acknowledged once that one is.
      await before;
      return event.ack();
    }
    if (await this.seen.has(id)) return event.ack();
    const work = app
      .processEvent({ body: event.body, ack: async () => {}, ...(event.retry_num !== undefined && { retryNum: event.retry_num }), ...(event.retry_reason && { retryReason: event.retry_reason }) })
      .then(() => this.seen.add(id));
    this.running.set(id, work);
    try {
      await work;
    } finally {
      this.running.delete(id);
    }
    await event.ack();
  }
}
