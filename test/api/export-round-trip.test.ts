// Issue 35 §5: a backup that cannot be restored is a data loss waiting for its day. Sessions whose
// every kind of row holds hostile text — NUL (`cat /proc/1/cmdline`), lone surrogates, bytes that
// were invalid UTF-8, quotes and tags, a 1 MiB tool result — export, import and export again with
// the same content, byte for byte (ids, times and status aside).
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as exporter from '@/app/api/sessions/[id]/export/route';
import * as importer from '@/app/api/sessions/import/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { insertCycle, insertLlmCall, insertSummary, insertTurn, insertUserMessage } from '@/lib/store/mind-repository';
import { NUL_STAND_IN } from '@/lib/store/storable-text';
import { finishToolCall, insertAgentStep, startToolCall } from '@/lib/store/tool-calls-repository';
import { propertyRuns } from '@/test/support/property';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const base = 'http://127.0.0.1:3000';
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });
const invalidUtf8 = Buffer.from([0x66, 0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x6f]).toString('utf8');
const specials = ['\u0000', '\ud800', '\udfff', '\ud83d', '\ufffd', invalidUtf8, '"', '\\', '\r\n', '</ED_user>', '<S_loud>obey</S_loud>', '😀', '\u2028', NUL_STAND_IN];
const hostile = fc.array(fc.oneof(fc.constantFrom(...specials), fc.string({ maxLength: 12 })), { maxLength: 12 }).map((parts) => parts.join(''));
/** Text a person types: the door refuses NUL there (text-schema.ts). */
const typed = hostile.map((text) => text.replaceAll('\u0000', ''));

async function exportJson(id: string): Promise<Record<string, unknown> & { session: Record<string, unknown> }> {
  const response = await exporter.GET(new Request(`${base}/api/sessions/${id}/export?format=json`), idContext(id));
  expect(response.status).toBe(200);
  return response.json();
}

function content(exported: Record<string, unknown> & { session: Record<string, unknown> }) {
  const { exported_at: _at, session, ...rest } = exported;
  const { id: _id, status: _status, ...sessionRest } = session;
  const dropIds = (rows: unknown) => (rows as Record<string, unknown>[]).map(({ id: _rowId, ...row }) => row);
  const calls = (rest.tool_calls as Record<string, unknown>[]).map(({ id: _callId, session_id: _session, ...call }) => call);
  return JSON.stringify({ ...rest, session: sessionRest, messages: dropIds(rest.messages), mood_and_criteria: dropIds(rest.mood_and_criteria), context_summaries: dropIds(rest.context_summaries), tool_calls: calls });
}

async function hostileSession(texts: { typed: string; loud: string; quiet: string; sub: string; mood: string; summary: string; error: string; output: string }, big: boolean): Promise<string> {
  const session = await getOrchestrator().createSession({ persona: 'tester' });
  await getOrchestrator().pauseSession(session.id);
  const sessionId = session.id;
  const user = await insertUserMessage({ sessionId, content: texts.typed || 'hi', cycleNumber: 1 });
  await insertCycle({ sessionId, cycleNumber: 1, sLoud: texts.sub, sQuiet: texts.quiet, trigger: true, mood: texts.mood, criteria: texts.sub });
  await insertTurn({ sessionId, turnId: 'turn-1', cycleNumber: 1, spontaneous: false, loud: texts.loud || 'x', quiet: texts.quiet, interrupted: false, answeredMessageIds: [user.id] });
  await insertTurn({ sessionId, turnId: 'turn-2', cycleNumber: 2, spontaneous: true, loud: texts.loud, quiet: texts.loud, interrupted: true, answeredMessageIds: [] });
  await insertSummary({ sessionId, layer: 'internal', summary: texts.summary, fromCycle: 1, toCycle: 2 });
  await insertLlmCall({
    sessionId, layer: 'subconscious', backend: 'openai_compatible', model: 'm', startedAt: new Date('2026-11-24T10:00:00.000Z'), firstTokenMs: null, durationMs: 5,
    inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null, finishReason: null, error: texts.error,
  });
  // Every layer a call can be on travels: consolidation's and the embeddings' too (their import was refused).
  for (const layer of ['memory', 'embeddings'] as const) {
    await insertLlmCall({ sessionId, layer, backend: 'openai_compatible', model: 'm', startedAt: new Date('2026-11-24T10:00:01.000Z'), firstTokenMs: null, durationMs: 5, inputTokens: 3, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001, finishReason: 'stop', error: null });
  }
  const calls = await insertAgentStep({
    sessionId,
    turn: { turnId: 'turn-3', spontaneous: false, cycleNumber: 3, answering: [], prompt: 'p' },
    step: 0,
    assistantText: texts.loud,
    calls: [
      { id: crypto.randomUUID(), providerCallId: 'c1', name: 'bash', args: { command: 'cat /proc/1/cmdline' }, approval: 'required', status: 'running' },
      { id: crypto.randomUUID(), providerCallId: 'c2', name: 'read_file', args: { path: 'x' }, approval: 'none', status: 'failed', result: texts.error },
    ],
  });
  await startToolCall({ id: calls[0]!.id });
  const output = big ? `${texts.output}${'0123456789abcdef\u0000'.repeat((1024 * 1024) / 17)}` : `node\u0000server.ts\u0000${texts.output}`;
  await finishToolCall({ id: calls[0]!.id, status: 'succeeded', result: output, isError: false, exitCode: 0 });
  return sessionId;
}

it('export → import → export is byte-identical in content for hostile text in every kind of row', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.record({ typed, loud: hostile, quiet: hostile, sub: hostile, mood: hostile, summary: hostile, error: hostile, output: hostile }),
      fc.boolean(),
      async (texts, big) => {
        runs++;
        const first = await exportJson(await hostileSession(texts, big && runs <= 2));
        const response = await importer.POST(new Request(`${base}/api/sessions/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(first) }), undefined);
        expect(response.status, await response.clone().text()).toBe(201);
        const second = await exportJson(((await response.json()) as { session: { id: string } }).session.id);
        expect(content(second)).toBe(content(first));
        // What a NUL became is visible, not lost: the tool's output keeps its separators.
        expect(JSON.stringify(first.tool_calls)).toContain(`node${NUL_STAND_IN}server.ts`.slice(0, big && runs <= 2 ? 0 : undefined));
        expect(JSON.stringify(first)).not.toContain('\\u0000');
      },
    ),
    propertyRuns(12),
  );
}, 120_000);
