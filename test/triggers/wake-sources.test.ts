// Every source of news wakes a resting mind within a second (issue 74 §2), on the simulated clock
// with the real loop, store, scheduler and webhook receiver: the mind is *stored* (no call until
// something happens), then a schedule's slot, a signed webhook, a message from an email chat, a card
// decided, a task, new settings and Resume each start a Subconscious cycle — without the clock
// moving (or, for the slot, at its time).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handleMessage } from '@/lib/channels/channel-inbound';
import type { InboundMessage } from '@/lib/channels/channel-types';
import { channelHost } from '@/lib/orchestrator/channel-host';
import { ownerActor } from '@/lib/people/rights';
import { saveBinding, saveChannel } from '@/lib/store/channels-repository';
import { personForSender } from '@/lib/store/people-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { insertHook } from '@/lib/store/triggers-repository';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';
import { receiveDelivery } from '@/lib/triggers/webhook';
import { settle } from '@/test/support/fake-clock';
import { createSession, useMindHarness, type Harness } from '@/test/support/mind-harness';

const { harness } = useMindHarness();
const HOUR = 3600_000;

/** A session whose mind has read its start and thought once more: stored, nothing due. */
async function storedMind(h: Harness) {
  const session = await createSession(h);
  await h.events.waitFor('subconscious-output');
  await h.clock.advance(5_000);
  await h.events.waitFor('subconscious-output', { count: 2 });
  await settle(5);
  expect(h.orchestrator.mindState(session.id)).toMatchObject({ rest: { kind: 'stored' }, nextCycleAt: null });
  await h.clock.advance(HOUR);
  expect(h.events.of('cycle-start', session.id)).toHaveLength(2);
  return session;
}

/** The next cycle starts with the clock where it is (`within` ms of now at most). */
async function wakesNow(h: Harness, sessionId: string) {
  const before = h.events.of('cycle-start', sessionId).length;
  const at = h.clock.now();
  await h.events.waitFor('cycle-start', { where: (event) => event.sessionId === sessionId, count: before + 1 });
  expect(h.clock.now() - at).toBeLessThan(1_000);
}

describe('a stored mind wakes at once on', () => {
  it('a schedule’s slot (at its time) and a signed webhook', async () => {
    const h = harness();
    const session = await storedMind(h);
    const slot = new Date(h.clock.now() + 2 * HOUR);
    const when = slot.toISOString().slice(0, 16).replace('T', ' ');
    await createSchedule({ sessionId: session.id, body: createScheduleSchema.parse({ kind: 'once', expression: when, time_zone: 'UTC', action: { kind: 'message', text: 'Time to stretch' } }), createdBy: 'user', now: new Date(h.clock.now()) });
    const before = h.events.of('cycle-start', session.id).length;
    await h.clock.advance(2 * HOUR - 60_000);
    expect(h.events.of('cycle-start', session.id)).toHaveLength(before);
    await h.clock.advance(61_000);
    await h.events.waitFor('cycle-start', { where: (event) => event.sessionId === session.id, count: before + 1 });
    expect(h.clock.now() - slot.getTime()).toBeLessThan(60_000);

    // Rested again, then a webhook.
    for (let hour = 0; hour < 3; hour++) await h.clock.advance(HOUR);
    const secret = 'whsec-test-secret';
    const hook = await insertHook({ id: randomUUID(), sessionId: session.id, name: 'doorbell', secret, action: { kind: 'message', text: 'Someone rang' } });
    const woken = wakesNow(h, session.id);
    const answer = await receiveDelivery({ hookId: hook.id, headers: new Headers({ authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-delivery-id': 'd-1' }), raw: Buffer.from('{"door":"front"}'), host: h.orchestrator.triggerHost });
    expect(answer.status).toBe(202);
    await woken;
  });

  it('a mail from a bound email chat, a task, new settings and Resume', async () => {
    const h = harness({ cFallback: { text: '<ID_loud>Got it.</ID_loud><ID_quiet>ok</ID_quiet>' } });
    const session = await storedMind(h);
    const channelId = randomUUID();
    const channel = await saveChannel({ id: channelId, kind: 'email', name: 'mail', enabled: false, config: { address: 'agent@example.org', imap: { host: '127.0.0.1', port: 1, tls: false, user: 'agent' }, smtp: { host: '127.0.0.1', port: 1, tls: false, user: 'agent' } } });
    const sender = 'email:ana@example.org';
    const person = await personForSender({ sender, name: 'Ana', role: 'trusted' });
    await saveBinding({ id: randomUUID(), channelId, sender, senderName: 'Ana', address: 'ana@example.org', sessionId: session.id, persona: null, push: 'all', quietHours: null, personId: person.id });
    let woken = wakesNow(h, session.id);
    const mail: InboundMessage = { sender, senderName: 'Ana', address: 'ana@example.org', text: 'Message-ID <m1@example.org>: are we still on for Friday?', mayRepeat: true };
    await handleMessage({ channel, host: channelHost(h.orchestrator), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date(h.clock.now()) }, mail);
    await woken;
    await h.events.waitFor('turn-end', { where: (event) => event.sessionId === session.id });
    const settleDown = async () => {
      for (let hour = 0; hour < 3; hour++) await h.clock.advance(HOUR);
      await settle(5);
      expect(h.orchestrator.mindState(session.id)!.rest).toMatchObject({ kind: 'stored' });
    };

    await settleDown();
    woken = wakesNow(h, session.id);
    await h.orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Say hello [[finish]]', constraints: { max_steps: 1 } }));
    await woken; // (its one step used, it ends while the clock moves on below)

    await settleDown();
    woken = wakesNow(h, session.id);
    await h.orchestrator.updateSession(session.id, { params: { spontaneous_cap: 2 } });
    await woken;

    await settleDown();
    await h.orchestrator.pauseSession(session.id);
    await settle(5);
    woken = wakesNow(h, session.id);
    await h.orchestrator.resumeSession(session.id);
    await woken;
  });

  it('a card decided while it rests', async () => {
    const h = harness({
      c: [{ text: '<ID_quiet>let me look</ID_quiet>', toolCalls: [{ id: 'call-1', name: 'bash', input: { command: 'ls /' } }] }],
      cFallback: { text: '<ID_loud>Fine, I will not.</ID_loud><ID_quiet>denied</ID_quiet>' },
    });
    const session = await storedMind(h);
    await h.orchestrator.sendUserMessage(session.id, { text: 'What is on the disk?' });
    const card = await h.events.waitFor('tool-call', { where: (event) => event.call.status === 'awaiting_approval' });
    // The person is away for hours: the mind has read the question and rests while the card waits.
    for (let hour = 0; hour < 3; hour++) await h.clock.advance(HOUR);
    await settle(5);
    expect(h.orchestrator.mindState(session.id)!.rest).toMatchObject({ kind: 'stored' });
    const woken = wakesNow(h, session.id);
    await h.orchestrator.decideToolCall({ id: card.call.id, decision: 'deny', reason: 'not now' }, await ownerActor());
    await woken;
  });
});
