// The allowances at the model boundary (issue 48): the real orchestrator on the fake model. With
// the app's day spent, a reply and the Subconscious make no model call — the page gets the reason
// (`allowance_spent`, when it renews) and the session shows it; raised, the next message is
// answered; every call's real cost is settled on the day. At the wall a webhook is recorded as
// skipped and a person writing from a chat gets a short fixed reply.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrchestrator, stopOrchestrator, type Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { randomUUID } from 'node:crypto';
import * as hooksRoute from '@/app/api/sessions/[id]/hooks/route';
import * as hookRoute from '@/app/api/hooks/[id]/route';
import * as overrideRoute from '@/app/api/allowances/override/route';
import { dayFigures, replaceAllowances, reserve, settle, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { dueOutbox, saveBinding, saveChannel } from '@/lib/store/channels-repository';
import { OWNER_ID, personForSender } from '@/lib/store/people-repository';
import { pushEvent } from '@/lib/channels/channel-outbound';
import { readWholeSession } from '@/lib/store/messages-repository';
import { handleMessage } from '@/lib/channels/channel-inbound';
import { channelHost } from '@/lib/orchestrator/channel-host';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { taskScript } from '@/test/fakes/task-script';
import { submitTaskSchema } from '@/lib/store/task-types';
import { findTask } from '@/lib/store/tasks-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let orchestrator: Orchestrator;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: taskScript });
  orchestrator = await startOrchestrator({ taskWorkingDelayMs: 0, taskAllowanceLookMs: 200 });
});
afterAll(async () => {
  await stopOrchestrator();
  await model?.close();
  await closeDb();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

describe('a daily allowance at the model boundary', () => {
  it('spent: no model call from a reply or the Subconscious, the reason on the page; raised: answered, the cost settled', async () => {
    const app: AllowanceRecord = { id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 50, timeZone: 'Europe/Madrid' };
    await replaceAllowances([app], new Date());
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const errors: Extract<OrchestratorEvent, { type: 'error' }>[] = [];
    const stop = orchestrator.bus.subscribe((event) => {
      if (event.type === 'error' && event.sessionId === session.id) errors.push(event);
    });
    const before = model.requests.length;
    await orchestrator.sendUserMessage(session.id, { text: 'Hello?' });
    await expect.poll(() => errors.find((event) => event.layer === 'internal'), { timeout: 15_000 }).toBeTruthy();
    const refused = errors.find((event) => event.layer === 'internal')!;
    expect(refused.kind).toBe('allowance_spent');
    expect(refused.message).toMatch(/^Not sent: today's allowance of 50 tokens for the app cannot take this call \(up to [\d,]+ tokens; 0 tokens spent, 0 tokens in calls running\); it renews at midnight Europe\/Madrid\.$/);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(model.requests.length).toBe(before); // nothing reached the model, from either layer
    expect((await orchestrator.mindState(session.id))?.degraded).toMatch(/Internal Dialog|Subconscious/);

    // Raised: the next message is answered, and what the calls cost is on today's row.
    await replaceAllowances([{ ...app, tokensPerDay: 1_000_000 }], new Date());
    await orchestrator.sendUserMessage(session.id, { text: 'And now?' });
    await expect.poll(async () => (await orchestrator.mindState(session.id))?.degraded ?? null, { timeout: 20_000 }).toBeNull();
    await expect.poll(() => model.requests.length, { timeout: 20_000 }).toBeGreaterThan(before);
    await expect.poll(async () => (await dayFigures([app], new Date()))[0]!.spentTokens, { timeout: 20_000 }).toBeGreaterThan(0);
    stop();
  }, 60_000);

  it('at the wall a webhook is recorded as skipped and a person on a chat gets the fixed reply; nothing reaches the model', async () => {
    const app: AllowanceRecord = { id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 50, timeZone: 'UTC' };
    await replaceAllowances([app], new Date());
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    // Spend the day: a call's worth settled on it.
    const held = await reserve([app], { usd: 0, tokens: 50 }, new Date());
    if (held.ok) await settle(held.reservation, { usd: 0, tokens: 50 });
    const before = model.requests.length;

    const idContext = (id: string) => ({ params: Promise.resolve({ id }) });
    const made = (await (await hooksRoute.POST(new Request(`http://127.0.0.1:3000/api/sessions/${session.id}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ci' }) }), idContext(session.id))).json()) as { hook: { id: string; secret: string } };
    const delivered = await hookRoute.POST(new Request(`http://127.0.0.1:3000/api/hooks/${made.hook.id}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${made.hook.secret}` }, body: '{"build":7}' }), idContext(made.hook.id));
    expect(delivered.status).toBe(202);
    expect(((await delivered.json()) as { result: string }).result).toBe("skipped: today's allowance (the app) is spent; it renews at midnight UTC");

    const channelId = randomUUID();
    const channel = await saveChannel({ id: channelId, kind: 'telegram', name: 'phone', enabled: false, config: { token: '1:x', api_root: 'http://127.0.0.1:1', callback_secret: 's' } });
    const person = await personForSender({ sender: 'telegram:77', name: 'Ana', role: 'trusted' });
    await saveBinding({ id: randomUUID(), channelId, sender: 'telegram:77', senderName: '@ana', address: '77', sessionId: session.id, persona: null, push: 'all', quietHours: null, personId: person.id });
    await handleMessage({ channel, host: channelHost(orchestrator), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() }, { sender: 'telegram:77', senderName: '@ana', address: '77', text: 'are you there?' });
    const [answer] = await dueOutbox(channelId, new Date(Date.now() + 1_000));
    expect(answer!.payload.text).toBe("Sorry — today's allowance for this assistant is used up. It renews at midnight (UTC); the owner can raise it in Settings.");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(model.requests.length).toBe(before);
    expect((await readWholeSession({ sessionId: session.id })).messages.some((message) => message.content.includes('are you there?') || message.content.includes('build'))).toBe(false);
  }, 60_000);

  it('a task at the wall pauses with the reason, and goes on by itself once the allowance is raised', async () => {
    const app: AllowanceRecord = { id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 10, timeZone: 'UTC' };
    await replaceAllowances([app], new Date());
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const task = await orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Find out [[ask]]', constraints: { max_steps: 4 } }));
    await expect.poll(async () => (await findTask(task.id))?.blockedOn, { timeout: 15_000 }).toMatchObject({ kind: 'allowance', reason: expect.stringMatching(/^Not sent: today's allowance of 10 tokens for the app cannot take this call/) });
    expect((await findTask(task.id))!.status).toBe('blocked');
    await expect(orchestrator.tasks.resume(task.id, 'go on')).rejects.toThrow(/waits for the daily allowance/);
    await replaceAllowances([{ ...app, tokensPerDay: 10_000_000 }], new Date());
    // It goes on (its next step asks the question of [[ask]]).
    await expect.poll(async () => (await findTask(task.id))?.blockedOn?.kind, { timeout: 15_000 }).toBe('question');
  }, 60_000);

  it('past 80% of the day, the page hears it once', async () => {
    const app: AllowanceRecord = { id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 20_000, timeZone: 'UTC' };
    await replaceAllowances([app], new Date());
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const [today] = await dayFigures([app], new Date()); // what the earlier cases spent today
    const held = await reserve([app], { usd: 0, tokens: 15_990 - today!.spentTokens }, new Date());
    if (held.ok) await settle(held.reservation, { usd: 0, tokens: 15_990 - today!.spentTokens });
    const notices: Extract<OrchestratorEvent, { type: 'allowance.notice' }>[] = [];
    const stop = orchestrator.bus.subscribe((event) => {
      if (event.type === 'allowance.notice') notices.push(event);
    });
    await orchestrator.sendUserMessage(session.id, { text: 'One more thing.' });
    await expect.poll(() => notices.length, { timeout: 15_000 }).toBe(1);
    expect(notices[0]).toMatchObject({ scope: 'app', unit: 'tokens', limit: 20_000, message: expect.stringMatching(/^8\d% of today's allowance for the app is spent \([\d,]+ tokens of 20,000 tokens\); at the limit the agent stops calling models until midnight UTC\.$/) });
    await orchestrator.sendUserMessage(session.id, { text: 'And another.' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(notices).toHaveLength(1);
    stop();
  }, 60_000);

  it("the 80% notice reaches each of the owner's chats, and no one else's", async () => {
    const channelId = randomUUID();
    await saveChannel({ id: channelId, kind: 'telegram', name: 'owner phone', enabled: false, config: { token: '1:x', api_root: 'http://127.0.0.1:1', callback_secret: 's' } });
    await saveBinding({ id: randomUUID(), channelId, sender: 'telegram:1', senderName: '@me', address: '1', sessionId: null, persona: 'tester', push: 'cards', quietHours: null, personId: OWNER_ID });
    const guest = await personForSender({ sender: 'telegram:2', name: 'Guest', role: 'guest' });
    await saveBinding({ id: randomUUID(), channelId, sender: 'telegram:2', senderName: '@guest', address: '2', sessionId: null, persona: 'tester', push: 'all', quietHours: null, personId: guest.id });
    const notice = { scope: 'app' as const, scope_id: '', day: '2026-11-27', unit: 'usd' as const, spent: 4.1, limit: 5, message: "82% of today's allowance for the app is spent ($4.10 of $5.00); at the limit the agent stops calling models until midnight UTC." };
    const event = { type: 'allowance.notice' as const, sessionId: randomUUID(), seq: 1, at: new Date().toISOString(), bootId: 'b', ...notice };
    const woken: string[] = [];
    const queued = await pushEvent({ session: async () => null, talksTo: async () => false, takeAnswerTargets: async () => ({ bindings: [], spoken: [] }), noteTurnStart: () => undefined, channelRunsHere: () => true, wake: (id) => woken.push(id), now: () => new Date() }, event);
    expect(queued).toBe(1);
    const rows = await dueOutbox(channelId, new Date(Date.now() + 1_000));
    expect(rows.map((row) => [row.address, row.payload.text])).toEqual([['1', `Spending: ${notice.message}`]]);
    expect(woken).toEqual([channelId]);
  });

  it("the owner's one-click override lets their own replies past the day, and nobody else's", async () => {
    const app: AllowanceRecord = { id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 20, timeZone: 'UTC' };
    await replaceAllowances([app], new Date());
    const mine = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const guest = await personForSender({ sender: 'telegram:99', name: 'Visitor', role: 'guest' });
    const theirs = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } }, { people: [guest.id] });
    const replied = async (sessionId: string, text: string) => (await readWholeSession({ sessionId })).messages.some((message) => message.tag === 'ED_agent' && message.content.includes(text));
    const refusal = (sessionId: string) => new Promise<string>((resolve) => {
      const stop = orchestrator.bus.subscribe((event) => {
        if (event.type === 'error' && event.sessionId === sessionId && event.layer === 'internal') {
          stop();
          resolve(event.kind);
        }
      });
    });
    let refused = refusal(mine.id);
    await orchestrator.sendUserMessage(mine.id, { text: 'before the override' });
    expect(await refused).toBe('allowance_spent');

    const override = await overrideRoute.POST(new Request('http://127.0.0.1:3000/api/allowances/override', { method: 'POST' }), { params: Promise.resolve({}) });
    expect(((await override.json()) as { override_until: string }).override_until).toMatch(/T00:00:00/);
    await orchestrator.sendUserMessage(mine.id, { text: 'past the limit, mine' });
    await expect.poll(() => replied(mine.id, 'past the limit, mine'), { timeout: 20_000 }).toBe(true);
    refused = refusal(theirs.id);
    await orchestrator.sendUserMessage(theirs.id, { text: 'a guest, past the limit?' });
    expect(await refused).toBe('allowance_spent');
    expect(await replied(theirs.id, 'a guest, past the limit?')).toBe(false);
    expect((await dayFigures([app], new Date()))[0]!.spentTokens).toBeGreaterThan(20); // counted all the same
    await overrideRoute.DELETE(new Request('http://127.0.0.1:3000/api/allowances/override', { method: 'DELETE' }), { params: Promise.resolve({}) });
  }, 60_000);

  it("the override holds on the owner's own chat too: the pre-check asks the same rule as the model boundary (issue 72 §2.5)", async () => {
    const app: AllowanceRecord = { id: 'app', scope: 'app', scopeId: '', usdPerDay: null, tokensPerDay: 20, timeZone: 'UTC' };
    await replaceAllowances([app], new Date());
    const mine = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const held = await reserve([app], { usd: 0, tokens: 20 }, new Date());
    if (held.ok) await settle(held.reservation, { usd: 0, tokens: 20 });
    const channelId = randomUUID();
    const channel = await saveChannel({ id: channelId, kind: 'telegram', name: 'owner phone', enabled: false, config: { token: '1:y', api_root: 'http://127.0.0.1:1', callback_secret: 's' } });
    await saveBinding({ id: randomUUID(), channelId, sender: 'telegram:1', senderName: '@owner', address: '1', sessionId: mine.id, persona: null, push: 'all', quietHours: null, personId: OWNER_ID });
    const write = (text: string) => handleMessage({ channel, host: channelHost(orchestrator), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() }, { sender: 'telegram:1', senderName: '@owner', address: '1', text });
    const stored = async (text: string) => (await readWholeSession({ sessionId: mine.id })).messages.some((message) => message.tag === 'ED_user' && message.content.includes(text));

    await write('without the override');
    expect((await dueOutbox(channelId, new Date(Date.now() + 1_000))).map((row) => row.payload.text)).toContain("Sorry — today's allowance for this assistant is used up. It renews at midnight (UTC); the owner can raise it in Settings.");
    expect(await stored('without the override')).toBe(false);

    await overrideRoute.POST(new Request('http://127.0.0.1:3000/api/allowances/override', { method: 'POST' }), { params: Promise.resolve({}) });
    try {
      await write('with the override, from my phone');
      expect(await stored('with the override, from my phone')).toBe(true); // it was let through, not refused
      await expect.poll(async () => (await readWholeSession({ sessionId: mine.id })).messages.some((message) => message.tag === 'ED_agent' && message.content.includes('with the override, from my phone')), { timeout: 20_000 }).toBe(true);
    } finally {
      await overrideRoute.DELETE(new Request('http://127.0.0.1:3000/api/allowances/override', { method: 'DELETE' }), { params: Promise.resolve({}) });
    }
  }, 60_000);
});
