// Quiet hours per person and per chat (issue 74 §5): in a person's quiet hours — or their chat's —
// the agent's unprompted words wait in the outbox until the later of the two ends, on every chat of
// theirs; a card goes out at once, and so does an answer they asked for. Their phone's
// notification of the words waits too (on a simulated clock), a card's does not.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushEvent, type OutboundContext } from '@/lib/channels/channel-outbound';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { EventBus } from '@/lib/mind/events';
import { dueOutbox, saveBinding, saveChannel } from '@/lib/store/channels-repository';
import { getDb } from '@/lib/store/db';
import { patchPersonSchema, personDetail } from '@/lib/http/people-json';
import { addSessionPeople, findPerson, updatePerson } from '@/lib/store/people-repository';
import { findSession, insertSession } from '@/lib/store/sessions-repository';
import type { ToolCallJson } from '@/lib/store/tool-call-json';
import { savePushSubscription } from '@/lib/store/web-auth-repository';
import { startPushNotifier } from '@/lib/web-auth/push-notifier';
import { FakeClock } from '@/test/support/fake-clock';
import { startPushService, type TestPushService } from '@/test/support/push-service';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
// Tomorrow 23:00 UTC (rows the outbox takes now are due by then): inside Ana's night (22:00–07:00
// UTC, eight hours left) and her second chat's own quiet hours (21:00–09:00).
const today = new Date();
const NOW = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1, 23, 0);
const HOUR = 3600_000;
const ana = randomUUID();
const sessionId = randomUUID();
const channels = { telegram: randomUUID(), email: randomUUID() };
let service: TestPushService;

beforeAll(async () => {
  service = await startPushService();
  process.env.AGENTCSD_PUSH_SERVICES = service.origin;
  await (await getDb()).person.create({ data: { id: ana, name: 'Ana', role: 'trusted' } });
  await updatePerson(ana, { limits: { quiet_hours: { from: '22:00', to: '07:00', time_zone: 'UTC' } } });
  await insertSession({ id: sessionId, name: "Ana's chat", personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
  await addSessionPeople(sessionId, [ana]);
  await saveChannel({ id: channels.telegram, kind: 'telegram', name: 'telegram', enabled: false, config: { token: '1:x', api_root: 'http://127.0.0.1:1', callback_secret: 's' } });
  await saveChannel({ id: channels.email, kind: 'telegram', name: 'second', enabled: false, config: { token: '2:x', api_root: 'http://127.0.0.1:1', callback_secret: 's' } });
  // Her Telegram chat has no quiet hours of its own; her second chat is quiet until 09:00.
  await saveBinding({ id: randomUUID(), channelId: channels.telegram, sender: 'telegram:1', senderName: 'Ana', address: '1', sessionId, persona: null, push: 'all', quietHours: null, personId: ana });
  await saveBinding({ id: randomUUID(), channelId: channels.email, sender: 'telegram:2', senderName: 'Ana', address: '2', sessionId, persona: null, push: 'all', quietHours: { from: '21:00', to: '09:00', time_zone: 'UTC' }, personId: ana });
});
afterAll(async () => {
  delete process.env.AGENTCSD_PUSH_SERVICES;
  await service.close();
});

const context: OutboundContext = {
  session: (id) => findSession({ id }),
  talksTo: async () => true,
  takeAnswerTargets: async () => ({ bindings: [], spoken: [] }),
  noteTurnStart: () => undefined,
  channelRunsHere: () => true,
  wake: () => undefined,
  now: () => new Date(NOW),
};

const words = (spontaneous: boolean) => ({
  turnId: randomUUID(),
  outcome: 'complete' as never,
  spontaneous,
  messages: [{ id: 1, layer: 'external' as const, tag: 'ED_agent', content: 'By the way: your parcel comes tomorrow.', cycle_number: 3, turn_id: 't', spontaneous, interrupted: false, created_at: new Date(NOW).toISOString() }],
});
const card = (): ToolCallJson => ({ id: randomUUID(), session_id: sessionId, name: 'bash', args: { command: 'ls' }, args_hash: 'h', status: 'awaiting_approval', owner_only: false }) as unknown as ToolCallJson;

describe('quiet hours of a person and of a chat', () => {
  it('hold the unprompted words on each chat until the later end; a card goes at once', async () => {
    await pushEvent(context, { type: 'turn-end', sessionId, seq: 1, at: new Date(NOW).toISOString(), ...words(true) } as never);
    await pushEvent(context, { type: 'tool-call', sessionId, seq: 2, at: new Date(NOW).toISOString(), call: card() } as never);
    const at = (channelId: string, time: number) => dueOutbox(channelId, new Date(time)).then((rows) => rows.map((row) => (row.payload.card ? 'card' : 'words')).sort());
    // Now: only the cards.
    expect(await at(channels.telegram, NOW)).toEqual(['card']);
    expect(await at(channels.email, NOW)).toEqual(['card']);
    // At 07:00 Ana's night ends: the words go on the chat without quiet hours of its own…
    expect(await at(channels.telegram, NOW + 8 * HOUR)).toEqual(['card', 'words']);
    // …and wait for 09:00 on the chat quiet until then.
    expect(await at(channels.email, NOW + 8 * HOUR)).toEqual(['card']);
    expect(await at(channels.email, NOW + 10 * HOUR)).toEqual(['card', 'words']);
    // Her page on People says what waits for her, and until when.
    const detail = await personDetail((await findPerson(ana))!, new Date(NOW));
    expect(detail.waiting).toEqual({ messages: 2, until: new Date(NOW + 10 * HOUR).toISOString() });
    expect(detail.person.limits).toEqual({ quiet_hours: { from: '22:00', to: '07:00', time_zone: 'UTC' } });
  });

  it('the person form takes quiet hours in a real time zone and refuses others', () => {
    expect(patchPersonSchema.safeParse({ limits: { quiet_hours: { from: '22:00', to: '07:00', time_zone: 'Europe/Madrid' } } }).success).toBe(true);
    expect(patchPersonSchema.safeParse({ limits: { quiet_hours: { from: '25:00', to: '07:00', time_zone: 'UTC' } } }).success).toBe(false);
    expect(patchPersonSchema.safeParse({ limits: { quiet_hours: { from: '22:00', to: '07:00', time_zone: 'Mars/Olympus' } } }).success).toBe(false);
  });

  it('her phone: the words are notified when her quiet hours end, a card at once', async () => {
    const clock = new FakeClock(NOW);
    const bus = new EventBus();
    const stop = startPushNotifier({ bus, present: () => false, clock });
    const phone = service.subscribe();
    await savePushSubscription({ endpoint: phone.endpoint, personId: ana, p256dh: phone.keys.p256dh, auth: phone.keys.auth });
    const titles = () => service.received.filter((entry) => entry.subscription === phone.endpoint).map((entry) => (JSON.parse(entry.payload) as { title: string }).title);
    const until = async (check: () => boolean) => {
      for (let tries = 0; tries < 200 && !check(); tries++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(check()).toBe(true);
    };
    try {
      bus.emit('turn-end', sessionId, words(true));
      bus.emit('tool-call', sessionId, { call: card() });
      await until(() => titles().length === 1);
      expect(titles()).toEqual(['bash waits for your decision']);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await clock.advance(8 * HOUR - 60_000);
      expect(titles()).toHaveLength(1);
      await clock.advance(60_000);
      await until(() => titles().length === 2);
      expect(titles()[1]).toBe("Ana's chat");
    } finally {
      stop();
    }
  });
});
