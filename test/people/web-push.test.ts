// Web Push (issue 61 §5) against a push service of the test's own on loopback that checks the VAPID
// signature and decrypts the payload with the subscription's keys the test made: what reaches whom
// (a card its deciders, the agent's unprompted words its conversation's people, nobody with a page
// open), a device its service forgot (410) is dropped, and a subscription pointing inside the
// network is refused on the guard's decision (a test resolver: nothing is dialled). Both stores.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { EventBus } from '@/lib/mind/events';
import { getDb } from '@/lib/store/db';
import { addSessionPeople, OWNER_ID } from '@/lib/store/people-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { pushSubscriptionsOf, savePushSubscription } from '@/lib/store/web-auth-repository';
import { endpointRefusal, pushToPerson, vapidKeys } from '@/lib/web-auth/push';
import { startPushNotifier } from '@/lib/web-auth/push-notifier';
import type { ToolCallJson } from '@/lib/store/tool-call-json';
import { startPushService, type TestPushService } from '@/test/support/push-service';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let service: TestPushService;
const ids = { alice: '', gus: '' };
const sessions = { alice: '', gus: '' };

beforeAll(async () => {
  service = await startPushService();
  process.env.AGENTCSD_PUSH_SERVICES = service.origin;
  const db = await getDb();
  for (const [name, role] of [['alice', 'trusted'], ['gus', 'guest']] as const) {
    ids[name] = randomUUID();
    await db.person.create({ data: { id: ids[name], name, role } });
    sessions[name] = randomUUID();
    await insertSession({ id: sessions[name], name: `${name}'s chat`, personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await addSessionPeople(sessions[name], [ids[name]]);
  }
});
afterAll(async () => {
  delete process.env.AGENTCSD_PUSH_SERVICES;
  await service.close();
});

async function device(personId: string) {
  const subscription = service.subscribe();
  await savePushSubscription({ endpoint: subscription.endpoint, personId, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth });
  return subscription;
}

const until = async (check: () => boolean) => {
  for (let tries = 0; tries < 200 && !check(); tries++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check()).toBe(true);
};

describe('a notification on the wire', () => {
  it('is signed with the app VAPID key (kept, the same at every use) and decrypts to the payload with the device keys', async () => {
    const phone = await device(ids.alice);
    const outcome = await pushToPerson(ids.alice, { title: 'bash waits for your decision', body: 'In “alice’s chat”', url: `/sessions/${sessions.alice}`, tag: 't' });
    expect(outcome).toEqual({ sent: 1, dropped: 0, failed: [] });
    const message = service.received.find((entry) => entry.subscription === phone.endpoint)!;
    expect(JSON.parse(message.payload)).toEqual({ title: 'bash waits for your decision', body: 'In “alice’s chat”', url: `/sessions/${sessions.alice}`, tag: 't' });
    expect(message.vapid.publicKey).toBe((await vapidKeys()).publicKey);
    expect(message.vapid.subject).toMatch(/^mailto:/);
    expect((await vapidKeys()).publicKey).toBe(message.vapid.publicKey);
    expect(service.refused).toEqual([]);
  });

  it('a device its push service forgot (410, 404) is dropped; the others keep theirs', async () => {
    const gone = await device(ids.gus);
    const kept = await device(ids.gus);
    service.answer(gone.endpoint, 410);
    expect(await pushToPerson(ids.gus, { title: 'x', body: 'y', url: '/', tag: 't' })).toEqual({ sent: 1, dropped: 1, failed: [] });
    expect((await pushSubscriptionsOf(ids.gus)).map((entry) => entry.endpoint)).toEqual([kept.endpoint]);
  });

  it('refuses an endpoint inside the network or not over HTTPS, on the resolver’s answer (nothing dialled)', async () => {
    const resolveTo = (address: string) => async () => [address];
    expect((await endpointRefusal('https://fcm.googleapis.com/fcm/send/abc', resolveTo('142.250.74.10'))).reason).toBeUndefined();
    for (const [endpoint, address] of [
      ['https://push.example/abc', '10.0.0.7'],
      ['https://push.example/abc', '169.254.169.254'],
      ['https://push.example/abc', '127.0.0.1'],
      ['https://push.example/abc', '::ffff:192.168.1.1'],
      ['https://localhost/abc', '127.0.0.1'],
      ['http://push.example/abc', '142.250.74.10'],
      ['https://user:pw@push.example/abc', '142.250.74.10'],
      ['not a url', '142.250.74.10'],
    ] as const) {
      expect((await endpointRefusal(endpoint, resolveTo(address))).reason, `${endpoint} → ${address}`).toBeTruthy();
    }
    // The loopback service is allowed only because AGENTCSD_PUSH_SERVICES names it.
    expect((await endpointRefusal(`${service.origin}/push/x`)).reason).toBeUndefined();
    delete process.env.AGENTCSD_PUSH_SERVICES;
    expect((await endpointRefusal(`${service.origin}/push/x`)).reason).toBeTruthy();
    process.env.AGENTCSD_PUSH_SERVICES = service.origin;
  });
});

const card = (sessionId: string, name: string): ToolCallJson => ({ id: randomUUID(), session_id: sessionId, name, status: 'awaiting_approval', owner_only: false }) as unknown as ToolCallJson;

describe('whose device an endpoint is (issue 72 §3)', () => {
  it("another person's endpoint with other keys is refused and stays theirs; the same browser (same keys) may change hands", async () => {
    const phone = await device(ids.alice);
    const forged = service.subscribe(); // someone else's keys, Alice's endpoint
    expect(await savePushSubscription({ endpoint: phone.endpoint, personId: ids.gus, p256dh: forged.keys.p256dh, auth: forged.keys.auth })).toBe('taken');
    expect((await pushSubscriptionsOf(ids.alice)).map((entry) => entry.endpoint)).toContain(phone.endpoint);
    expect((await pushSubscriptionsOf(ids.gus)).map((entry) => entry.endpoint)).not.toContain(phone.endpoint);
    // Gus signs in on Alice's browser: it presents the very keys it holds, and the device is his now.
    expect(await savePushSubscription({ endpoint: phone.endpoint, personId: ids.gus, p256dh: phone.keys.p256dh, auth: phone.keys.auth })).toBe('saved');
    expect((await pushSubscriptionsOf(ids.gus)).map((entry) => entry.endpoint)).toContain(phone.endpoint);
    expect((await pushSubscriptionsOf(ids.alice)).map((entry) => entry.endpoint)).not.toContain(phone.endpoint);
  });
});

describe('who is notified', () => {
  it('a card goes to those who may decide it (a guest’s to the owner); the agent’s unprompted words to its people; nobody with a page open', async () => {
    const bus = new EventBus();
    const open = new Set<string>();
    const stop = startPushNotifier({ bus, present: (personId) => open.has(personId) });
    const aliceDevice = await device(ids.alice);
    const ownerDevice = await device(OWNER_ID);
    const gusDevice = await device(ids.gus);
    const to = (endpoint: string) => service.received.filter((entry) => entry.subscription === endpoint).map((entry) => JSON.parse(entry.payload) as { title: string; body: string; url: string });
    try {
      bus.emit('tool-call', sessions.alice, { call: card(sessions.alice, 'bash') });
      await until(() => to(aliceDevice.endpoint).length === 1 && to(ownerDevice.endpoint).length === 1);
      expect(to(aliceDevice.endpoint)[0]).toMatchObject({ title: 'bash waits for your decision', url: `/sessions/${sessions.alice}` });

      bus.emit('tool-call', sessions.gus, { call: card(sessions.gus, 'python') });
      await until(() => to(ownerDevice.endpoint).length === 2);
      expect(to(gusDevice.endpoint)).toEqual([]);

      // The owner's page is open: their card is on it, not on their phone.
      open.add(OWNER_ID);
      bus.emit('tool-call', sessions.alice, { call: card(sessions.alice, 'web_fetch') });
      await until(() => to(aliceDevice.endpoint).length === 2);
      expect(to(ownerDevice.endpoint)).toHaveLength(2);

      const message = { id: 1, layer: 'external' as const, tag: 'ED_agent', content: 'By the way: your parcel arrives tomorrow.', cycle_number: 3, turn_id: 't', spontaneous: true, interrupted: false, created_at: new Date().toISOString() };
      bus.emit('turn-end', sessions.gus, { turnId: 't', outcome: 'replied' as never, spontaneous: true, messages: [message] });
      await until(() => to(gusDevice.endpoint).length === 1);
      expect(to(gusDevice.endpoint)[0]).toEqual({ title: "gus's chat", body: 'By the way: your parcel arrives tomorrow.', url: `/sessions/${sessions.gus}`, tag: `words-${sessions.gus}` });
      // An answer to a message is not unprompted: no notification.
      bus.emit('turn-end', sessions.alice, { turnId: 'u', outcome: 'replied' as never, spontaneous: false, messages: [{ ...message, spontaneous: false }] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(to(aliceDevice.endpoint)).toHaveLength(2);
    } finally {
      stop();
    }
  });
});
