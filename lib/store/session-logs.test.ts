import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { appendLogRecords, readLogRecords, repairTornTail, sessionLogDir } from './session-logs';

useTempAppDirs();
const sessionId = '11111111-2222-4333-8444-555555555555';
const record = (content: string, cycle: number | null = null) => ({ timestamp: '2026-11-22T00:00:00.000Z', tag: 'S_quiet', content, cycle_number: cycle });

describe('session logs', () => {
  it('appends one JSON line per record in the seed format', () => {
    appendLogRecords({ sessionId, file: 'subconscious', records: [record('a', 1), record('b\nwith newline', 2)] });
    const text = fs.readFileSync(path.join(sessionLogDir(sessionId), 'subconscious.jsonl'), 'utf8');
    expect(text.split('\n')).toHaveLength(3);
    expect(readLogRecords({ sessionId, file: 'subconscious' })).toEqual([record('a', 1), record('b\nwith newline', 2)]);
  });

  it('repairs a torn last line before appending, so no record is glued to a fragment', () => {
    const file = path.join(sessionLogDir(sessionId), 'external_dialog.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(record('complete'))}\n{"timestamp":"2026-11-22T00:0`);
    appendLogRecords({ sessionId, file: 'external', records: [record('after crash')] });
    expect(readLogRecords({ sessionId, file: 'external' })).toEqual([record('complete'), record('after crash')]);
  });

  it('drops an unterminated last line when reading but reports other corruption', () => {
    const file = path.join(sessionLogDir(sessionId), 'internal_dialog.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(record('x'))}\n{"torn`);
    expect(readLogRecords({ sessionId, file: 'internal' })).toEqual([record('x')]);
    fs.writeFileSync(file, `not json\n${JSON.stringify(record('x'))}\n`);
    expect(() => readLogRecords({ sessionId, file: 'internal' })).toThrow(/line 1 .* corrupt/);
  });

  it('repairTornTail handles a file that is one long torn line', () => {
    const file = path.join(sessionLogDir(sessionId), 'torn-only.jsonl');
    fs.writeFileSync(file, 'x'.repeat(200_000));
    expect(repairTornTail(file)).toBe(true);
    expect(fs.statSync(file).size).toBe(0);
    expect(repairTornTail(path.join(sessionLogDir(sessionId), 'missing.jsonl'))).toBe(false);
  });

  it('refuses a session id that is not a UUID', () => {
    expect(() => sessionLogDir('../../etc')).toThrow(/Not a session id/);
  });
});
