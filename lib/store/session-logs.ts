// Per-session files under data/logs/{session_id}/ (seed 000 section 5.3): JSONL logs, one per
// layer, and the persona snapshot. Appends repair a torn last line left by a crash first, so a
// new record is never glued onto a fragment.
import fs from 'node:fs';
import path from 'node:path';
import { appPaths } from '@/lib/config/env';
import { processSlot } from '@/lib/process/process-state';

export const logFiles = {
  external: 'external_dialog.jsonl',
  internal: 'internal_dialog.jsonl',
  subconscious: 'subconscious.jsonl',
  moodAndCriteria: 'mood_and_criteria.jsonl',
} as const;
export type LogFile = keyof typeof logFiles;

export interface LogRecord {
  timestamp: string;
  tag: string;
  content: string;
  cycle_number: number | null;
  /** The task whose step wrote the line (live lines of a task's turn). */
  trace_id?: string;
}

/** The log line of a stored message or mood row: same fields whether written live or replayed. */
export function logRecordOf(row: { createdAt: Date; tag: string; content: string; cycleNumber: number | null }): LogRecord {
  return { timestamp: row.createdAt.toISOString(), tag: row.tag, content: row.content, cycle_number: row.cycleNumber };
}

/** A mood row is two lines: its mood and its criteria. */
export function moodLogRecords(row: { createdAt: Date; mood: string; criteria: string; cycleNumber: number }): LogRecord[] {
  const timestamp = row.createdAt.toISOString();
  return [
    { timestamp, tag: 'mood', content: row.mood, cycle_number: row.cycleNumber },
    { timestamp, tag: 'criteria', content: row.criteria, cycle_number: row.cycleNumber },
  ];
}

const sessionIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function sessionLogDir(sessionId: string): string {
  // Ids are server-made UUIDs; refuse anything else rather than build a path from it.
  if (!sessionIdPattern.test(sessionId)) throw new Error(`Not a session id: ${JSON.stringify(sessionId)}`);
  return path.join(appPaths().logsDir, sessionId);
}

export function personaSnapshotPath(sessionId: string): string {
  return path.join(sessionLogDir(sessionId), 'persona_core_snapshot.md');
}

export function writePersonaSnapshot(input: { sessionId: string; content: Buffer }): void {
  const dir = sessionLogDir(input.sessionId);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = personaSnapshotPath(input.sessionId);
  const temp = `${target}.tmp-${process.pid}`;
  const handle = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeSync(handle, input.content);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  fs.renameSync(temp, target);
}

export function readPersonaSnapshot(sessionId: string): string | null {
  try {
    return fs.readFileSync(personaSnapshotPath(sessionId), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Cuts an unterminated last line (a crash mid-append) so the next append starts clean. */
export function repairTornTail(file: string): boolean {
  let handle: number;
  try {
    handle = fs.openSync(file, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    const size = fs.fstatSync(handle).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    fs.readSync(handle, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    // Walk back to the previous newline in blocks.
    const block = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const length = end - start;
      fs.readSync(handle, block, 0, length, start);
      const index = block.subarray(0, length).lastIndexOf(0x0a);
      if (index !== -1) {
        fs.ftruncateSync(handle, start + index + 1);
        return true;
      }
      end = start;
    }
    fs.ftruncateSync(handle, 0);
    return true;
  } finally {
    fs.closeSync(handle);
  }
}

const repairedFiles = processSlot('store.repaired-logs', () => new Set<string>()).value;

export function appendLogRecords(input: { sessionId: string; file: LogFile; records: LogRecord[] }): void {
  if (input.records.length === 0) return;
  const dir = sessionLogDir(input.sessionId);
  const file = path.join(/*turbopackIgnore: true*/ dir, logFiles[input.file]);
  if (!repairedFiles.has(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    repairTornTail(file);
    repairedFiles.add(file);
  }
  const text = input.records.map((record) => `${JSON.stringify(record)}\n`).join('');
  fs.appendFileSync(file, text, { mode: 0o600 });
}

/**
 * tool_calls.jsonl: one line per call when it reaches its final state (the database has every
 * state; this is the plain-text record beside the dialogs' logs).
 */
export function appendToolCallLog(input: { sessionId: string; call: object }): void {
  const dir = sessionLogDir(input.sessionId);
  const file = path.join(dir, 'tool_calls.jsonl');
  if (!repairedFiles.has(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    repairTornTail(file);
    repairedFiles.add(file);
  }
  fs.appendFileSync(file, `${JSON.stringify(input.call)}\n`, { mode: 0o600 });
}

/** Complete lines in a log (an unterminated last line is not one). */
export function countLogLines(input: { sessionId: string; file: LogFile }): number {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ sessionLogDir(input.sessionId), logFiles[input.file]));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let lines = 0;
  for (let index = bytes.indexOf(0x0a); index !== -1; index = bytes.indexOf(0x0a, index + 1)) lines++;
  return lines;
}

/** Reads a log, dropping an unterminated last line; any other bad line is corruption. */
export function readLogRecords(input: { sessionId: string; file: LogFile }): LogRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ sessionLogDir(input.sessionId), logFiles[input.file]), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines = text.split('\n');
  lines.pop(); // '' after the final newline, or an unterminated line that was never fully written
  return lines.map((line, index) => {
    try {
      return JSON.parse(line) as LogRecord;
    } catch {
      throw new Error(`${logFiles[input.file]} line ${index + 1} of session ${input.sessionId} is corrupt`);
    }
  });
}

export function deleteSessionLogs(sessionId: string): void {
  fs.rmSync(sessionLogDir(sessionId), { recursive: true, force: true });
  for (const file of repairedFiles) if (file.includes(sessionId)) repairedFiles.delete(file);
}
