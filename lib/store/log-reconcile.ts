// After a crash the JSONL logs can trail the database: a row commits, then its lines are appended,
// and kill -9 can land in between, or mid-line. The database is the record; this repairs a torn
// last line and replays the rows whose lines are missing, in id order, so every row has its line
// again (RELIABILITY.md: "a torn last JSONL line is repaired").
import fs from 'node:fs';
import path from 'node:path';
import { getDb } from './db';
import { listFinishedToolCalls, toolCallJson } from './tool-calls-repository';
import type { Layer } from './messages-repository';
import {
  appendLogRecords,
  appendToolCallLog,
  countLogLines,
  logFiles,
  logRecordOf,
  moodLogRecords,
  repairTornTail,
  sessionLogDir,
  type LogFile,
  type LogRecord,
} from './session-logs';
import { logFailure } from './store-faults';

/** The four dialog logs, and tool_calls.jsonl. */
type ReconciledFile = LogFile | 'toolCalls';

export interface ReconcileReport {
  /** Files whose unterminated last line was cut. */
  repaired: ReconciledFile[];
  /** Lines replayed from the database per file. */
  replayed: Partial<Record<ReconciledFile, number>>;
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
  await reconcileToolCallLog(sessionId, report);
  return report;
}

/**
 * tool_calls.jsonl gets a line when a call reaches its final state, and calls finish in any
 * order, so lines are matched to rows by id: every final call without a line gets one (a kill
 * between the commit and the append, or calls marked interrupted at start-up).
 */
async function reconcileToolCallLog(sessionId: string, report: ReconcileReport): Promise<void> {
  const file = path.join(sessionLogDir(sessionId), 'tool_calls.jsonl');
  if (repairTornTail(file)) report.repaired.push('toolCalls');
  const finished = await listFinishedToolCalls({ sessionId });
  if (finished.length === 0) return;
  const logged = new Set<string>();
  if (fs.existsSync(file)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const id = (JSON.parse(line) as { id?: unknown }).id;
        if (typeof id === 'string') logged.add(id);
      } catch {
        // a line we cannot read stays as it is; its call gets a good line below
      }
    }
  }
  const missing = finished.filter((call) => !logged.has(call.id));
  for (const call of missing) appendToolCallLog({ sessionId, call: toolCallJson(call) });
  if (missing.length > 0) report.replayed.toolCalls = missing.length;
}

function truncateToLines(file: string, keep: number): void {
  const bytes = fs.readFileSync(file);
  let end = 0;
  for (let line = 0; line < keep; line++) end = bytes.indexOf(0x0a, end) + 1;
  fs.truncateSync(file, end);
}

/** Mends a session's logs before its mind starts; what was mended is reported, a failure logged (never fatal). */
export async function reconcileLogsReporting(sessionId: string): Promise<void> {
  try {
    const report = await reconcileSessionLogs(sessionId);
    if (report.repaired.length > 0 || Object.keys(report.replayed).length > 0 || report.ahead.length > 0) {
      console.warn(`[mind ${sessionId}] logs reconciled with the database: ${JSON.stringify(report)}`);
    }
  } catch (error) {
    logFailure(`[mind ${sessionId}] log reconciliation failed`, error);
  }
}
