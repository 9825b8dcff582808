// "Remind me tomorrow at 9" in conversation (issue 29): the real orchestrator, the fake model
// calling the `schedule` tool. A one-shot reminder within 30 days is made without a card; a
// recurring job waits for the person's approval; when the reminder's time comes the mind gets a
// message marked scheduled and answers it, and the schedule is done.
import { ownerActor } from '@/lib/people/rights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { readWholeSession } from '@/lib/store/messages-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { findSchedule, listSchedules, updateSchedule } from '@/lib/store/triggers-repository';
import { scheduleApproval } from '@/lib/triggers/schedule-tool';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { EventRecorder } from '@/test/support/event-recorder';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let orchestrator: Orchestrator;

beforeAll(async () => {
  model = await startFakeOpenAIServer({ script: mindScript });
  orchestrator = new Orchestrator();
  await orchestrator.start();
});
afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await closeDb();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });

/** Tomorrow at 09:00 in Madrid, as the person would write it. */
function tomorrowAtNine(): string {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now() + 24 * 3600_000));
  return `${day} 09:00`;
}

describe('the schedule tool', () => {
  it('asks only for recurring or far-away schedules', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    expect(scheduleApproval({ operation: 'create', kind: 'once', when: '2026-11-26 09:00', time_zone: 'Europe/Madrid' }, now)).toBe('never');
    expect(scheduleApproval({ operation: 'create', kind: 'once', when: '2027-02-01 09:00', time_zone: 'Europe/Madrid' }, now)).toBe('required');
    expect(scheduleApproval({ operation: 'create', kind: 'cron', when: '0 8 * * *' }, now)).toBe('required');
    expect(scheduleApproval({ operation: 'create', kind: 'once', when: 'soon' }, now)).toBe('required');
    expect(scheduleApproval({ operation: 'list' }, now)).toBe('never');
  });

  it('a reminder made in conversation without a card, a recurring one after approval; the reminder wakes the mind when due', async () => {
    const events = new EventRecorder(orchestrator.bus);
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await orchestrator.sendUserMessage(session.id, { text: `Remind me to call the dentist [[remind ${tomorrowAtNine()}]]` });
    const card = await events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.name === 'schedule' && event.call.status === 'awaiting_approval', timeoutMs: 15_000 });
    expect(card.call.args).toMatchObject({ kind: 'cron', when: '0 8 * * 1-5' });
    const once = async () => (await listToolCalls({ sessionId: session.id })).find((call) => call.args?.kind === 'once');
    await expect.poll(async () => (await once())?.status, { timeout: 10_000 }).toBe('succeeded');
    expect((await once())!.approval).toBe('none');
    const [reminder] = await listSchedules({ sessionId: session.id });
    expect(reminder).toMatchObject({ kind: 'once', createdBy: 'agent', state: 'active', name: 'Call the dentist', timeZone: 'Europe/Madrid' });
    expect(new Date(reminder!.nextFireAt!).getUTCHours()).toBe(8); // 09:00 in Madrid, winter time

    await orchestrator.decideToolCall({ id: card.call.id, decision: 'approve', args_hash: card.call.args_hash, session_id: session.id }, await ownerActor());
    await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 15_000 });
    expect((await listSchedules({ sessionId: session.id })).map((entry) => entry.kind).sort()).toEqual(['cron', 'once']);

    // Its time comes (moved to now): the mind is told, and answers.
    await updateSchedule(reminder!.id, { nextFireAt: new Date() });
    orchestrator.scheduler.poke();
    await events.waitFor('schedule.fired', { where: (event) => event.schedule.id === reminder!.id, timeoutMs: 15_000 });
    await expect.poll(async () => (await readWholeSession({ sessionId: session.id })).messages.some((message) => message.tag === 'ED_agent' && message.content.includes('You said: ⏰ Scheduled "Call the dentist"')), { timeout: 15_000 }).toBe(true);
    expect(await findSchedule(reminder!.id)).toMatchObject({ state: 'done', lastResult: 'message sent' });
    events.close();
  }, 40_000);
});
