// The two paths at the wall that have no page of their own (issue 48): consolidation (the memory
// layer) and a specialist's session (a delegated child) call models through the same mind boundary
// as replies — with their allowance spent, the call is not made: consolidation records itself
// failed with the reason, the specialist's step fails with it; the backend hears nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultParams, type LayerModelConfig } from '@/lib/config/model-config';
import { EventBus } from '@/lib/mind/events';
import { realClock } from '@/lib/clock/clock';
import { defaultRetryPolicy } from '@/lib/backends/retry-policy';
import { TokenCalibration } from '@/lib/mind/token-budget';
import { consolidateSession } from '@/lib/memory/consolidation';
import { mindModelCalls, type ModelCallDependencies } from '@/lib/session-mind/mind-model-calls';
import { LayerHealth } from '@/lib/session-mind/layer-health';
import { replaceAllowances, reserve, settle, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { closeDb, getDb } from '@/lib/store/db';
import { emptyUsageByLayer, insertUserMessage } from '@/lib/store/mind-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
afterAll(() => closeDb());

const layer: LayerModelConfig = { backend: 'openai_compatible', model: 'fake', max_tokens: 200, endpoint: 'http://127.0.0.1:9/v1' };

async function spentPersona(persona: string): Promise<void> {
  const allowance: AllowanceRecord = { id: `persona:${persona}`, scope: 'persona', scopeId: persona, usdPerDay: null, tokensPerDay: 100, timeZone: 'UTC' };
  await replaceAllowances([allowance], new Date());
  const held = await reserve([allowance], { usd: 0, tokens: 100 }, new Date());
  if (held.ok) await settle(held.reservation, { usd: 0, tokens: 100 });
}

/** The mind's own model-call boundary, on exactly the dependencies it declares (the compiler says when they change). */
function boundary(sessionId: string, backend: ScriptedBackend) {
  const deps: ModelCallDependencies = { bus: new EventBus(), clock: realClock, createBackend: () => backend, retryPolicy: defaultRetryPolicy, random: Math.random, stallTimeoutMs: 5_000, fallbackCoolDownMs: 60_000, calibration: new TokenCalibration() };
  return mindModelCalls({ sessionId, deps, health: new LayerHealth(() => Date.now(), Math.random), prompts: {}, usage: emptyUsageByLayer(), changed: () => undefined });
}

describe('the paths without a page, at the wall', () => {
  it('consolidation records itself failed with the reason; nothing reaches the model', async () => {
    await getDb();
    const sessionId = randomUUID();
    const session = await insertSession({ id: sessionId, name: 'resting', personaName: 'keeper', personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
    for (const text of ['I grow tomatoes', 'I live near the sea', 'My sister is called Ana', 'I work nights']) await insertUserMessage({ sessionId, content: text, cycleNumber: 1 });
    await spentPersona('keeper');
    const backend = new ScriptedBackend([], { text: '[]' });
    const outcome = await consolidateSession({ context: { sessionId, session: () => session, callModel: boundary(sessionId, backend) }, personaName: 'keeper', signal: new AbortController().signal, now: new Date() });
    expect(outcome).toMatchObject({ kind: 'ran', consolidation: { status: 'failed', error: expect.stringMatching(/^allowance_spent: Not sent: today's allowance of 100 tokens for the persona keeper cannot take this call/) } });
    expect(backend.calls).toHaveLength(0);
  });

  it("a specialist's session answers to its persona's allowance: its step's call is not made", async () => {
    const parent = randomUUID();
    const child = randomUUID();
    await insertSession({ id: parent, name: 'lead', personaName: 'lead', personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
    await insertSession({ id: child, name: 'reviewer for lead', personaName: 'reviewer', personaHash: 'h', models: { c_model: layer, s_model: layer }, params: defaultParams, status: 'active' });
    await (await getDb()).session.update({ where: { id: child }, data: { parentSessionId: parent } });
    await spentPersona('reviewer');
    const backend = new ScriptedBackend([], { text: '<ID_loud>reviewed</ID_loud>' });
    const result = await boundary(child, backend)({ layer: 'internal', config: layer, request: { model: 'fake', maxTokens: 200, system: [{ text: 'You review.' }], messages: [{ role: 'user', content: 'Review the report.' }] }, signal: new AbortController().signal, traceId: 'child-task' });
    expect(result.error?.kind).toBe('allowance_spent');
    expect(result.error?.message).toMatch(/the persona reviewer/);
    expect(backend.calls).toHaveLength(0);
    // The lead's own calls are not held by the reviewer's allowance.
    const lead = await boundary(parent, backend)({ layer: 'internal', config: layer, request: { model: 'fake', maxTokens: 200, system: [{ text: 'You lead.' }], messages: [{ role: 'user', content: 'Plan.' }] }, signal: new AbortController().signal });
    expect(lead.error).toBeNull();
    expect(backend.calls).toHaveLength(1);
  });
});
