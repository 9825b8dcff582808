import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { reconcileSessionLogs } from './log-reconcile';
import { insertCycle, insertUserMessage } from './mind-repository';
import { finishToolCall, insertAgentStep, interruptRunningToolCalls, toolCallJson } from './tool-calls-repository';
import { appendLogRecords, appendToolCallLog, logRecordOf, logFiles, moodLogRecords, readLogRecords, sessionLogDir } from './session-logs';
import { insertSession } from './sessions-repository';
import { defaultModels, defaultParams } from '@/lib/config/model-config';

useTempAppDirs();
const sessionId = '22222222-3333-4444-8555-666666666666';

describe('log reconciliation after a crash', () => {
  it('replays rows whose lines never got written, cuts torn and partial lines, and leaves complete logs alone', async () => {
    await insertSession({ id: sessionId, name: 'crashy', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
    const users = [];
    for (let index = 0; index < 3; index++) users.push(await insertUserMessage({ sessionId, content: `hello ${index}`, cycleNumber: index }));
    const cycles = [];
    for (let cycle = 1; cycle <= 2; cycle++) cycles.push(await insertCycle({ sessionId, cycleNumber: cycle, sLoud: `loud ${cycle}`, sQuiet: `quiet ${cycle}`, trigger: false, mood: `mood ${cycle}`, criteria: `c ${cycle}` }));

    // As a kill -9 leaves them: the first user line written, the second torn, the third missing;
    // the first cycle whole, the second's lines never written; a mood line without its criteria.
    appendLogRecords({ sessionId, file: 'external', records: [logRecordOf(users[0]!)] });
    fs.appendFileSync(path.join(sessionLogDir(sessionId), logFiles.external), JSON.stringify(logRecordOf(users[1]!)).slice(0, 25));
    appendLogRecords({ sessionId, file: 'subconscious', records: cycles[0]!.messages.map(logRecordOf) });
    const moods = cycles.flatMap((persisted) => moodLogRecords(persisted.moodAndCriteria));
    appendLogRecords({ sessionId, file: 'moodAndCriteria', records: moods.slice(0, 3) });

    const report = await reconcileSessionLogs(sessionId);
    expect(report).toEqual({ repaired: ['external'], replayed: { external: 2, subconscious: 3, moodAndCriteria: 2 }, ahead: [] });
    expect(readLogRecords({ sessionId, file: 'external' })).toEqual(users.map(logRecordOf));
    expect(readLogRecords({ sessionId, file: 'subconscious' })).toEqual(cycles.flatMap((persisted) => persisted.messages.map(logRecordOf)));
    expect(readLogRecords({ sessionId, file: 'moodAndCriteria' })).toEqual(moods);
    expect(readLogRecords({ sessionId, file: 'internal' })).toEqual([]);

    // Already in agreement: nothing to do, nothing touched.
    const before = fs.readFileSync(path.join(sessionLogDir(sessionId), logFiles.external));
    expect(await reconcileSessionLogs(sessionId)).toEqual({ repaired: [], replayed: {}, ahead: [] });
    expect(fs.readFileSync(path.join(sessionLogDir(sessionId), logFiles.external))).toEqual(before);

    // A log with lines the DB does not have is reported, never trimmed.
    appendLogRecords({ sessionId, file: 'internal', records: [{ timestamp: 'x', tag: 'ID_quiet', content: 'orphan', cycle_number: 1 }] });
    expect((await reconcileSessionLogs(sessionId)).ahead).toEqual(['internal']);
    expect(readLogRecords({ sessionId, file: 'internal' })).toHaveLength(1);
  });
});

describe('tool_calls.jsonl after a crash', () => {
  it('every call in a final state gets exactly one line, matched by id; a torn line is cut', async () => {
    const toolSession = '33333333-4444-4555-8666-777777777777';
    await insertSession({ id: toolSession, name: 'tools', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
    const calls = await insertAgentStep({
      sessionId: toolSession,
      turn: { turnId: 'turn-1', spontaneous: false, cycleNumber: 0, answering: [], prompt: 'p' },
      step: 0,
      assistantText: '',
      calls: [
        { id: 'call-a', providerCallId: 'a', name: 'list_files', args: {}, approval: 'none', status: 'running' },
        { id: 'call-b', providerCallId: 'b', name: 'bash', args: { command: 'ls' }, approval: 'required', status: 'running' },
        { id: 'call-c', providerCallId: 'c', name: 'bash', args: { command: 'pwd' }, approval: 'required', status: 'awaiting_approval' },
      ],
    });
    const finished = await finishToolCall({ id: 'call-a', status: 'succeeded', result: 'a.txt', isError: false, running: calls[0] });
    // As a kill leaves it: call-a's line written, then a torn line; call-b found running at start-up.
    appendToolCallLog({ sessionId: toolSession, call: toolCallJson(finished!) });
    const file = path.join(sessionLogDir(toolSession), 'tool_calls.jsonl');
    fs.appendFileSync(file, '{"id":"call-b","sta');
    expect(await interruptRunningToolCalls()).toBe(1);

    const report = await reconcileSessionLogs(toolSession);
    expect(report).toEqual({ repaired: ['toolCalls'], replayed: { toolCalls: 1 }, ahead: [] });
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; status: string });
    expect(lines.map((line) => [line.id, line.status])).toEqual([
      ['call-a', 'succeeded'],
      ['call-b', 'interrupted'],
    ]); // call-c still waits for a person: no line until it ends
    expect(await reconcileSessionLogs(toolSession)).toEqual({ repaired: [], replayed: {}, ahead: [] });
  });
});
