// The mind's context over time, with the harness of session-mind.test.ts: prompts within the model
// window (and a backend counting more), summaries every N cycles over 5,000 cycles, compaction on
// a too-long prompt, and resuming after a restart or a shutdown.
import { describe, expect, it } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import fs from 'node:fs';
import path from 'node:path';
import { insertUserMessage } from '@/lib/store/mind-repository';
import { getDb } from '@/lib/store/db';
import { readLogRecords } from '@/lib/store/session-logs';
import { updateSession } from '@/lib/store/sessions-repository';
import { EventRecorder } from '@/test/support/event-recorder';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { summarySystemPrompt } from './context-summaries';
import { FakeClock } from '@/test/support/fake-clock';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { estimateRequestTokens, TokenCalibration } from '@/lib/mind/token-budget';
import { createSession, rows, layerConfig, useMindHarness } from '@/test/support/mind-harness';

const { harness, running } = useMindHarness();
describe('context budgets', () => {
  it('prompts stay within the model window; a backend counting 20% more tokens shrinks the history to match', async () => {
    const calibration = new TokenCalibration();
    const clock = new FakeClock();
    const s = new ScriptedBackend([], (request, call) => ({
      text: subconsciousReply({ sQuiet: `thought ${call}: ${'ponder '.repeat(60)}`, sLoud: `note ${call}` }),
      usage: { inputTokens: Math.round(estimateRequestTokens(request) * 1.2) },
      ...(call === 40 && { holdAfterChunks: 0 }),
    }));
    const c = new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud><ID_quiet>fine</ID_quiet>' });
    const orchestrator = new Orchestrator({ clock, calibration, random: () => 0.5, createBackend: (config) => (config.model === 'c-model' ? c : s) });
    const events = new EventRecorder(orchestrator.bus);
    running.push({ orchestrator, clock, events, c, s });
    await orchestrator.start();
    const window = 4_096;
    const sModel = { ...layerConfig('s-model'), context_window: window };
    // Summaries are tested below; here only the fitting and the calibration are at work.
    await orchestrator.createSession({ persona: 'tester', models: { c_model: layerConfig('c-model'), s_model: sModel }, params: { pacing: 'continuous', summary_every_n: 1000 } });
    await s.whenHolding();
    expect(calibration.factor('s-model')).toBeCloseTo(1.2, 2);
    // Every prompt, as the backend counts it, left room for the answer. (Uncalibrated, the full
    // history would be sized for the local count and overshoot by 20%.)
    for (const request of s.calls) expect(Math.round(estimateRequestTokens(request) * 1.2)).toBeLessThanOrEqual(window - sModel.max_tokens);
    // The oldest thoughts were dropped from the prompt; the newest are there, in order.
    const thoughts = (s.calls[39]!.messages[0]!.content.match(/thought \d+/g) ?? []).map((match) => Number(match.slice(8)));
    expect(thoughts.length).toBeLessThan(39);
    expect(thoughts).toEqual(thoughts.map((_, index) => 39 - thoughts.length + 1 + index));
    expect(thoughts.length).toBeGreaterThan(3);
  });
});

describe('summaries', () => {
  it('5,000 cycles of growing thoughts: every prompt within budget, summaries exactly every N cycles, nothing lost, a resume rebuilds the window', { timeout: 120_000 }, async () => {
    const N = 10;
    const last = 5_000;
    const calibration = new TokenCalibration();
    let cycles = 0;
    const summaryAt: { layer: string; cycle: number }[] = [];
    const s = new ScriptedBackend(
      [],
      (request) => {
        if (request.system[0]!.text === summarySystemPrompt) {
          const layer = request.messages[0]!.content.startsWith("These are the Subconscious's") ? 'subconscious' : 'internal';
          summaryAt.push({ layer, cycle: cycles + 1 });
          return { text: `Summary (${layer}) through cycle ${cycles}: ${'gist '.repeat(30)}` };
        }
        cycles++;
        return {
          text: subconsciousReply({ sQuiet: `thought ${cycles}: ${'more '.repeat(Math.min(cycles, 150))}`, sLoud: `note ${cycles}`, trigger: cycles % 25 === 0 && cycles < last - 100 }),
          chunkSize: 4_000,
          ...(cycles === last && { holdAfterChunks: 0 }),
        };
      },
      { keepCalls: false },
    );
    const cRequests: string[] = [];
    const c = new ScriptedBackend([], (request) => {
      cRequests.push(request.messages[0]!.content);
      return { text: `<ID_loud></ID_loud><ID_quiet>private ${cRequests.length}: ${'idea '.repeat(80)}</ID_quiet>`, chunkSize: 4_000 };
    }, { keepCalls: false });
    const sRequests: { cycle: number; tokens: number; content: string }[] = [];
    const recording = (backend: ScriptedBackend) => (config: LayerModelConfig) => {
      if (config.model === 'c-model') return c;
      return {
        kind: 'openai_compatible' as const,
        stream: (request: Parameters<ScriptedBackend['stream']>[0], signal: AbortSignal) => {
          if (request.system[0]!.text !== summarySystemPrompt) sRequests.push({ cycle: cycles + 1, tokens: estimateRequestTokens(request), content: request.messages[0]!.content });
          return backend.stream(request, signal);
        },
      };
    };
    const clock = new FakeClock();
    const first = new Orchestrator({ clock, calibration, random: () => 0.5, createBackend: recording(s) });
    const events = new EventRecorder(first.bus);
    await first.start();
    const sModel = { ...layerConfig('s-model'), context_window: 4_096 };
    const cModel = { ...layerConfig('c-model'), context_window: 3_072 };
    const session = await first.createSession({
      persona: 'tester',
      models: { c_model: cModel, s_model: sModel },
      params: { pacing: 'continuous', summary_every_n: N, spontaneous_cap: 100 },
    });
    await s.whenHolding();

    // Every prompt fitted its window with room for the answer.
    expect(sRequests.length).toBe(last);
    for (const request of sRequests) expect(request.tokens).toBeLessThanOrEqual(sModel.context_window - sModel.max_tokens);
    // Summaries only ever at multiples of N; once the window is full, at every one of them.
    const subconsciousAt = summaryAt.filter((item) => item.layer === 'subconscious').map((item) => item.cycle);
    expect(subconsciousAt.every((cycle) => cycle % N === 0)).toBe(true);
    const firstSummary = subconsciousAt[0]!;
    expect(firstSummary).toBeLessThan(100);
    expect(subconsciousAt).toEqual(Array.from({ length: (last - firstSummary) / N + 1 }, (_, index) => firstSummary + index * N));
    // The Internal Dialog's thoughts were summarised too, and its prompts stayed in budget.
    expect(summaryAt.some((item) => item.layer === 'internal')).toBe(true);
    expect(cRequests.length).toBeGreaterThan(50);
    const db = await getDb();
    const stored = await db.contextSummary.findMany({ where: { sessionId: session.id }, orderBy: { id: 'asc' } });
    const subconsciousRows = stored.filter((row) => row.layer === 'subconscious');
    expect(subconsciousRows).toHaveLength(subconsciousAt.length);
    // Each folds the previous one: it covers from cycle 1 to somewhere before the cycle that made it.
    subconsciousRows.forEach((row, index) => {
      expect(row.fromCycle).toBe(1);
      expect(row.toCycle).toBeLessThan(subconsciousAt[index]!);
      if (index > 0) expect(row.toCycle).toBeGreaterThan(subconsciousRows[index - 1]!.toCycle);
    });
    // The latest summary leads the history; every message is still in the database.
    expect(sRequests.at(-1)!.content).toMatch(/<S_quiet_history>Summary of cycles 1–\d+: Summary \(subconscious\)/);
    expect(await db.message.count({ where: { sessionId: session.id, tag: 'S_quiet' } })).toBe(last - 1);

    // Restart: the held cycle 5,000 is asked again, with exactly the same window.
    // The held call is cut by the shutdown (after its grace period), so cycle 5,000 is not stored.
    const stopping = first.stop();
    await clock.advance(3_000);
    await stopping;
    events.close();
    await updateSession({ id: session.id, status: 'active' });
    cycles = last - 1;
    const resumed = new ScriptedBackend([], { text: subconsciousReply(), holdAfterChunks: 0 });
    const second = new Orchestrator({ clock, calibration, random: () => 0.5, createBackend: recording(resumed) });
    running.push({ orchestrator: second, clock, events: new EventRecorder(second.bus), c, s: resumed });
    const before = sRequests.at(-1)!.content;
    await second.start();
    await expect.poll(() => sRequests.length, { timeout: 5_000 }).toBe(last + 1);
    expect(sRequests.at(-1)!.content).toBe(before);
  });

  it('a backend that says the prompt is too long gets one compaction and one retry', async () => {
    const s = new ScriptedBackend([{ error: { kind: 'prompt_too_long', message: 'prompt is too long: 210000 tokens > 200000 maximum', status: 400 } }], { text: subconsciousReply() });
    const h = harness();
    const orchestrator = new Orchestrator({ clock: h.clock, random: () => 0.5, createBackend: (config) => (config.model === 'c-model' ? h.c : s) });
    running.push({ ...h, orchestrator, events: new EventRecorder(orchestrator.bus), s });
    const events = running.at(-1)!.events;
    await orchestrator.start();
    await orchestrator.createSession({ persona: 'tester', models: { c_model: layerConfig('c-model'), s_model: layerConfig('s-model') } });
    const output = await events.waitFor('subconscious-output');
    expect(output.cycle).toBe(1);
    expect(s.calls).toHaveLength(2);
    expect(events.of('error')).toHaveLength(0);
  });

  it('a reply whose prompt is too long is retried once with half the history, then reported if it fails again', async () => {
    const tooLong = { error: { kind: 'prompt_too_long' as const, message: 'prompt is too long', status: 400 } };
    const h = harness({ c: [tooLong, { text: '<ID_loud>Fits now.</ID_loud><ID_quiet>ok</ID_quiet>' }, tooLong, tooLong] });
    const session = await createSession(h);
    await h.orchestrator.sendUserMessage(session.id, { text: 'first' });
    expect((await h.events.waitFor('turn-end')).outcome).toBe('complete');
    expect(h.c.calls).toHaveLength(2);
    await h.orchestrator.sendUserMessage(session.id, { text: 'second' });
    const failed = await h.events.waitFor('turn-end', { count: 2 });
    expect([failed.outcome, failed.error]).toEqual(['failed', 'prompt is too long']);
    expect(h.c.calls).toHaveLength(4);
    h.c.assertComplete();
  });
});

describe('restart', () => {
  it('a session left active by a crash resumes with its history, M&C, cycle numbering and unanswered messages', async () => {
    const first = harness({ sFallback: { text: subconsciousReply({ mood: 'wistful', criteria: 'Mention the sea.' }) } });
    const session = await createSession(first);
    await first.orchestrator.sendUserMessage(session.id, { text: 'remember me' });
    await first.events.waitFor('turn-end');
    // A cycle yields to I/O while it persists, so it may end after an advance: advance until three.
    while (first.events.of('subconscious-output').length < 3) {
      await first.clock.advance(3_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    running.splice(running.indexOf(first), 1);
    await first.orchestrator.stop();
    first.events.close();
    const lastCycle = Math.max(...first.events.of('subconscious-output').map((event) => event.cycle));

    // As if the process died: still active, with a message the mind never answered.
    await updateSession({ id: session.id, status: 'active' });
    const waiting = await insertUserMessage({ sessionId: session.id, content: 'are you back?', cycleNumber: lastCycle });

    const second = harness();
    await second.orchestrator.start();
    const end = await second.events.waitFor('turn-end');
    const request = second.c.calls[0]!;
    expect(request.system[1]!.text).toBe('## Mood & Criteria\nMood: wistful\nCriteria: Mention the sea.');
    expect(request.messages[0]!.content).toBe('<ED_user>are you back?</ED_user>\n<ID_quiet_history>fine</ID_quiet_history>');
    expect((await rows(session.id)).find((row) => row.id === waiting.id)!.turnId).toBe(end.turnId);
    // A restart is not news (the mind rests until something happens); the reply is: a cycle follows at the working pace.
    await second.clock.advance(3_000);
    const output = await second.events.waitFor('subconscious-output');
    expect(output.cycle).toBe(lastCycle + 1);
    // Logs and DB agree line for line: the message inserted behind the logs' back (as a crash
    // between commit and append leaves it) was replayed into the log on start.
    const stored = await rows(session.id);
    const logged = ['external', 'internal', 'subconscious'].flatMap((file) => readLogRecords({ sessionId: session.id, file: file as 'external' }));
    expect(logged.length).toBe(stored.length);
    expect(logged.filter((line) => line.content === 'are you back?')).toHaveLength(1);
  });

  it('closing the program pauses every session; a reply cut off by the shutdown is kept as interrupted', async () => {
    const h = harness({ c: [{ chunks: ['<ID_loud>Half', ' a thought'], holdAfterChunks: 1 }] });
    const session = await createSession(h);
    await h.orchestrator.sendUserMessage(session.id, { text: 'talk' });
    await h.c.whenHolding();
    running.splice(running.indexOf(h), 1);
    const stopping = h.orchestrator.stop();
    await h.clock.advance(3_000); // the grace period runs out
    await stopping;
    h.events.close();
    const db = await getDb();
    expect((await db.session.findUnique({ where: { id: session.id } }))!.status).toBe('paused');
    const agent = (await rows(session.id)).find((row) => row.tag === 'ED_agent')!;
    expect([agent.content, agent.interrupted]).toEqual(['Half', true]);
    expect(fs.existsSync(path.join(process.env.AGENTCSD_DATA_DIR!, 'logs', session.id, 'external_dialog.jsonl'))).toBe(true);
  });
});
