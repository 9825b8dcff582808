// The allowances at the model boundary (issue 48): the real orchestrator on the fake model. With
// the app's day spent, a reply and the Subconscious make no model call — the page gets the reason
// (`allowance_spent`, when it renews) and the session shows it; raised, the next message is
// answered; every call's real cost is settled on the day.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { dayFigures, replaceAllowances, type AllowanceRecord } from '@/lib/store/allowances-repository';
import type { OrchestratorEvent } from '@/lib/mind/events';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let orchestrator: Orchestrator;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: mindScript });
  orchestrator = new Orchestrator({});
  await orchestrator.start();
});
afterAll(async () => {
  await orchestrator?.stop();
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
});
