// After a crash the JSONL logs can trail the database: a row commits, then its lines are appended,
// and kill -9 can land in between, or mid-line. The database is the record; this repairs a torn
// last line and replays the rows whose lines are missing, in id order, so every row has its line
// again (RELIABILITY.md: "a torn last JSONL line is repaired").
import fs from 'node:fs';
import path from 'node:path';
import { getDb } from './db';
import type { Layer } from './messages-repository';
import {
  appendLogRecords,
  countLogLines,
  logFiles,
  logRecordOf,
  moodLogRecords,
  repairTornTail,
  sessionLogDir,
  type LogFile,
  type LogRecord,
} from './session-logs';

export interface ReconcileReport {
  /** Files whose unterminated last line was cut. */
  repaired: LogFile[];
  /** Lines replayed from the database per file. */
  replayed: Partial<Record<LogFile, number>>;
  /** Files with more lines than the database has rows: left alone and reported, never trimmed. */
  ahead: LogFile[];
}

const messageFiles: [LogFile, Layer][] = [
  ['external', 'external'],
  ['internal', 'internal'],
  ['subconscious', 'subconscious'],
];

export async function reconcileSessionLogs(sessionId: string): Promise<ReconcileReport> {
  const db = await getDb();
  const report: ReconcileReport = { repaired: [], replayed: {}, ahead: [] };
  const dir = sessionLogDir(sessionId);

  const settle = async (file: LogFile, rowCount: number, linesPerRow: number, rowsFrom: (skip: number) => Promise<LogRecord[]>) => {
    if (repairTornTail(path.join(dir, logFiles[file]))) report.repaired.push(file);
    const lines = countLogLines({ sessionId, file });
    const expected = rowCount * linesPerRow;
    if (lines > expected) report.ahead.push(file);
    if (lines >= expected) return;
    // A row's lines are appended in one write; a crash inside it leaves part of the group, which
    // is cut and written again whole.
    const completeRows = Math.floor(lines / linesPerRow);
    if (completeRows * linesPerRow !== lines) truncateToLines(path.join(dir, logFiles[file]), completeRows * linesPerRow);
    const records = await rowsFrom(completeRows);
    appendLogRecords({ sessionId, file, records });
    report.replayed[file] = records.length;
  };

  for (const [file, layer] of messageFiles) {
    const where = { sessionId, layer };
    await settle(file, await db.message.count({ where }), 1, async (skip) =>
      (await db.message.findMany({ where, orderBy: { id: 'asc' }, skip })).map(logRecordOf),
    );
  }
  await settle('moodAndCriteria', await db.moodAndCriteria.count({ where: { sessionId } }), 2, async (skip) =>
    (await db.moodAndCriteria.findMany({ where: { sessionId }, orderBy: { id: 'asc' }, skip })).flatMap(moodLogRecords),
  );
  return report;
}

function truncateToLines(file: string, keep: number): void {
  const bytes = fs.readFileSync(file);
  let end = 0;
  for (let line = 0; line < keep; line++) end = bytes.indexOf(0x0a, end) + 1;
  fs.truncateSync(file, end);
}
