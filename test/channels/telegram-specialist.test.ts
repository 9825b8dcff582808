// A specialist's card reaches the chat of the session that delegated to it (issue 34): a person
// bound to the crew's lead over Telegram sees the researcher's python call as a card ("A specialist
// asks: …"), decides it with the button there, and the researcher's answer comes back to the lead.
// The specialist's own task events stay out of the chat (the lead's say what matters).
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeChannelConfig, channelInputSchema } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { CREW_LEAD, installCrew } from '@/lib/crew/crew';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { getDb } from '@/lib/store/db';
import { findTask } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { crewScript } from '@/test/fakes/crew-script';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram, type FakeTelegram } from '@/test/fakes/fake-telegram-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs();
let model: FakeOpenAIServer;
let telegram: FakeTelegram;
let orchestrator: Orchestrator;
const channelId = randomUUID();
const ana = { id: 4343, username: 'ana' };

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755); // the sandbox's user runs the researcher's python in the workspace
  model = await startFakeOpenAIServer({ script: crewScript });
  telegram = await startFakeTelegram();
  await installCrew();
});
afterAll(async () => {
  await orchestrator?.stop();
  await telegram.close();
  await model.close();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const textsTo = (chatId: number) => telegram.sent.filter((message) => message.chatId === String(chatId)).map((message) => message.text);

describe('a specialist’s card over Telegram', () => {
  it('shows in the lead’s chat and is decided there; the researcher’s answer reaches the lead', async () => {
    const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } });
    await saveChannel({ id: channelId, kind: 'telegram', name: input.name, enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
    await orchestrator.start();
    const lead = await orchestrator.createSession({ persona: CREW_LEAD, models: { c_model: layer(), s_model: layer() } });
    await expect.poll(async () => (await orchestrator.channels!.status(channelId)).state.kind, { timeout: 10_000 }).toBe('connected');
    telegram.userWrites(ana, 'hello');
    await expect.poll(async () => (await listOpenPairings(channelId, new Date())).length, { timeout: 10_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: lead.id, role: 'trusted', share: true }));
    orchestrator.channels!.wake(channelId);
    await expect.poll(() => textsTo(ana.id).at(-1), { timeout: 10_000 }).toMatch(/^Paired/);

    const task = await orchestrator.tasks.submit(lead.id, submitTaskSchema.parse({ goal: 'Find the answer [[research]]' }));
    await expect.poll(() => telegram.sent.filter((message) => message.chatId === String(ana.id) && message.replyMarkup?.inline_keyboard.length).length, { timeout: 20_000 }).toBe(1);
    const card = telegram.sent.find((message) => message.chatId === String(ana.id) && message.replyMarkup?.inline_keyboard.length)!;
    expect(card.text).toContain('A specialist asks:');
    expect(card.text).toContain('print(6 * 7)');
    const python = async () => {
      const child = await (await getDb()).task.findFirstOrThrow({ where: { parentTaskId: task.id } });
      return (await listToolCalls({ sessionId: child.sessionId })).find((call) => call.name === 'python');
    };
    expect((await python())?.status).toBe('awaiting_approval');

    const approve = card.replyMarkup!.inline_keyboard.flat().find((button) => button.text === 'Approve')!.callback_data!;
    telegram.userPresses(ana, card.messageId, approve);
    await expect.poll(() => telegram.callbackAnswers.at(-1)?.text, { timeout: 10_000 }).toMatch(/approved/);
    await expect.poll(async () => (await findTask(task.id))?.status, { timeout: 30_000 }).toBe('completed');
    expect((await findTask(task.id))?.result).toBe('The answer is 42 (computed in python).');
    expect((await python())?.status).toBe('succeeded');
    // The lead's task end reaches the chat; the researcher's own does not.
    await expect.poll(() => textsTo(ana.id).filter((text) => text.startsWith('Task finished')), { timeout: 10_000 }).toEqual([expect.stringContaining('Task finished: Find the answer [[research]]')]);
  }, 60_000);
});
