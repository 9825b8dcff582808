// Tool calls, the steps that made them, and the turns they belong to (ARCHITECTURE §10). A call
// is committed before its card is shown; its status only moves forward, each move a
// compare-and-set on the status it leaves, so a second click, another tab or a replayed request
// gets the first outcome, and a call is run at most once.
import { sha256Hex } from '@/lib/security/digest';
import { getDb, getStore } from './db';
import { rawDb, rawWrite, sqliteDate, statement } from './raw-db';
import { pgDate, pgQuery, pgRaw } from './pg-raw';
import { storableText } from './storable-text';
import { storedDecision, type StoredDecision, type ToolCallRecord, type ToolCallStatus, type ToolDecision } from './tool-call-types';

export type { DecisionAuthor, ToolCallRecord, ToolCallStatus, ToolDecision } from './tool-call-types';

/** Statuses after which the call's result is final. */
export const FINAL_STATUSES: readonly ToolCallStatus[] = ['denied', 'expired', 'succeeded', 'failed', 'cancelled', 'interrupted'];

export interface NewToolCall {
  id: string;
  providerCallId: string;
  name: string;
  args: Record<string, unknown> | null;
  approval: 'none' | 'required';
  /**
   * `awaiting_approval`, `approved` (no approval needed, or a rule), `running` (approved and
   * started at once: committed before it runs, so a crash finds it running and never re-runs
   * it), or `denied`/`failed` with a result.
   */
  status: 'awaiting_approval' | 'approved' | 'running' | 'denied' | 'failed';
  decision?: ToolDecision;
  result?: string;
  untrustedReason?: string;
  /** Only the owner decides it (the rights authority's answer when it was proposed). */
  ownerOnly?: boolean;
}

export interface AgentTurnRecord {
  turnId: string;
  sessionId: string;
  status: 'open' | 'closed';
  spontaneous: boolean;
  cycleNumber: number;
  answering: number[];
  prompt: string;
  /** The task this turn is a step of; null for a conversation turn. */
  taskId?: string | null;
}

export interface AgentStepRecord {
  step: number;
  assistantText: string;
  calls: ToolCallRecord[];
}

/** Canonical JSON (sorted keys) hashed: what a decision must name to apply to this call. */
export function hashArgs(args: Record<string, unknown> | null): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.keys(value as object).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
    }
    return value;
  };
  return sha256Hex(JSON.stringify(canonical(args)));
}

type ToolCallRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['toolCall']['findFirstOrThrow']>>;

function toRecord(row: ToolCallRow): ToolCallRecord {
  return {
    ...row,
    args: row.args === null ? null : (JSON.parse(row.args) as Record<string, unknown>),
    approval: row.approval as ToolCallRecord['approval'],
    status: row.status as ToolCallStatus,
    decision: row.decision === null ? null : storedDecision(JSON.parse(row.decision) as StoredDecision),
  };
}

/**
 * Commits one step: the turn (opened on its first step), what the model said, and its calls —
 * before any of them is shown or run.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const TOOL_CALL_COLUMNS =
  'id, session_id, turn_id, task_id, trace_id, step, position, provider_call_id, name, args, args_hash, approval, status, decision, result, is_error, exit_code, dropped_bytes, created_at, decided_at, started_at, finished_at, untrusted_reason, owner_only';

export async function insertAgentStep(input: {
  sessionId: string;
  turn: Omit<AgentTurnRecord, 'status' | 'sessionId'>;
  step: number;
  assistantText: string;
  calls: NewToolCall[];
  taskId?: string | null;
  traceId?: string | null;
}): Promise<ToolCallRecord[]> {
  const store = await getStore(); // the file exists and is migrated before the direct connection writes
  const now = new Date();
  const rows: ToolCallRow[] = input.calls.map((call, position) => {
    const final = call.status === 'denied' || call.status === 'failed';
    return {
      id: call.id,
      sessionId: input.sessionId,
      turnId: input.turn.turnId,
      taskId: input.taskId ?? input.turn.taskId ?? null,
      traceId: input.traceId ?? null,
      step: input.step,
      position,
      providerCallId: call.providerCallId,
      name: call.name,
      args: call.args === null ? null : JSON.stringify(call.args),
      argsHash: hashArgs(call.args),
      approval: call.approval,
      status: call.status,
      decision: call.decision ? JSON.stringify(call.decision) : null,
      result: call.result == null ? null : storableText(call.result),
      isError: final,
      exitCode: null,
      droppedBytes: 0,
      createdAt: now,
      decidedAt: call.decision ? now : null,
      startedAt: call.status === 'running' ? now : null,
      finishedAt: final ? now : null,
      untrustedReason: call.untrustedReason ?? null,
      ownerOnly: call.ownerOnly === true,
      resultSource: null,
    };
  });
  // One transaction: the turn (on its first step), the step, its calls.
  if (store.kind === 'postgres') {
    // One statement, one round trip (pg-raw.ts): the turn on its first step, the step, its calls.
    const turn = input.turn;
    const calls = rows.map((row) => ({
      id: row.id, session_id: row.sessionId, turn_id: row.turnId, task_id: row.taskId, trace_id: row.traceId, step: row.step, position: row.position,
      provider_call_id: row.providerCallId, name: row.name, args: row.args, args_hash: row.argsHash, approval: row.approval, status: row.status,
      decision: row.decision, result: row.result, is_error: row.isError, exit_code: row.exitCode, dropped_bytes: row.droppedBytes,
      created_at: pgDate(row.createdAt), decided_at: pgDate(row.decidedAt), started_at: pgDate(row.startedAt), finished_at: pgDate(row.finishedAt),
      untrusted_reason: row.untrustedReason,
      owner_only: row.ownerOnly,
    }));
    await pgQuery(
      pgRaw(store.url),
      'agentcsd_insert_agent_step',
      `WITH turn AS (
         INSERT INTO agent_turns (turn_id, session_id, status, spontaneous, cycle_number, answering, prompt, created_at, task_id)
         SELECT $2, $1, 'open', $3::boolean, $4::int, $5, $6, $7::timestamp(3), $8 WHERE $9::boolean
         ON CONFLICT DO NOTHING
       ), step AS (
         INSERT INTO agent_steps (session_id, turn_id, step, assistant_text, created_at) VALUES ($1, $2, $10::int, $11, $7::timestamp(3))
       )
       INSERT INTO tool_calls (${TOOL_CALL_COLUMNS})
       SELECT ${TOOL_CALL_COLUMNS} FROM json_populate_recordset(NULL::tool_calls, $12::json)`,
      [
        input.sessionId, turn.turnId, turn.spontaneous, turn.cycleNumber, JSON.stringify(turn.answering), turn.prompt, pgDate(now),
        input.taskId ?? turn.taskId ?? null, input.step === 0, input.step, storableText(input.assistantText),
      // A lone surrogate is U+FFFD in a text parameter; in JSON, PostgreSQL refuses it: made alike.
      JSON.stringify(calls, (_key, value: unknown) => (typeof value === 'string' ? value.replace(LONE_SURROGATE, '\ufffd') : value)),
      ],
    );
    return rows.map(toRecord);
  }
  const raw = rawDb();
  const insertTurn = statement(
    raw,
    `INSERT OR IGNORE INTO agent_turns (turn_id, session_id, status, spontaneous, cycle_number, answering, prompt, created_at, task_id) VALUES (?, ?, 'open', ?, ?, ?, ?, ?, ?)`,
  );
  const insertStep = statement(raw, 'INSERT INTO agent_steps (session_id, turn_id, step, assistant_text, created_at) VALUES (?, ?, ?, ?, ?)');
  const insertCall = statement(
    raw,
    `INSERT INTO tool_calls (id, session_id, turn_id, task_id, trace_id, step, position, provider_call_id, name, args, args_hash, approval, status, decision, result, is_error, exit_code, dropped_bytes, created_at, decided_at, started_at, finished_at, untrusted_reason, owner_only)
     VALUES (@id, @sessionId, @turnId, @taskId, @traceId, @step, @position, @providerCallId, @name, @args, @argsHash, @approval, @status, @decision, @result, @isError, @exitCode, @droppedBytes, @createdAt, @decidedAt, @startedAt, @finishedAt, @untrustedReason, @ownerOnly)`,
  );
  await rawWrite(raw.database.transaction(() => {
    if (input.step === 0) {
      const turn = input.turn;
      insertTurn.run(turn.turnId, input.sessionId, turn.spontaneous ? 1 : 0, turn.cycleNumber, JSON.stringify(turn.answering), turn.prompt, sqliteDate(now), input.taskId ?? turn.taskId ?? null);
    }
    insertStep.run(input.sessionId, input.turn.turnId, input.step, input.assistantText, sqliteDate(now));
    for (const row of rows) {
      insertCall.run({
        ...row,
        isError: row.isError ? 1 : 0,
        ownerOnly: row.ownerOnly ? 1 : 0,
        createdAt: sqliteDate(row.createdAt),
        decidedAt: sqliteDate(row.decidedAt),
        startedAt: sqliteDate(row.startedAt),
        finishedAt: sqliteDate(row.finishedAt),
      });
    }
  }));
  return rows.map(toRecord);
}

export type DecideOutcome =
  | { ok: true; call: ToolCallRecord }
  | { ok: false; reason: 'not_found' | 'not_awaiting' | 'args_mismatch'; call?: ToolCallRecord };

/**
 * A person's decision, applied once: only a call of this session, awaiting a decision, with
 * these exact arguments moves. Anything else gets the call as it is now.
 */
export async function decideToolCall(input: {
  sessionId?: string;
  id: string;
  argsHash?: string;
  decision: ToolDecision;
}): Promise<DecideOutcome> {
  const db = await getDb();
  const current = await db.toolCall.findUnique({ where: { id: input.id } });
  if (!current || (input.sessionId !== undefined && current.sessionId !== input.sessionId)) return { ok: false, reason: 'not_found' };
  if (input.argsHash !== undefined && input.argsHash !== current.argsHash) return { ok: false, reason: 'args_mismatch', call: toRecord(current) };
  const approved = input.decision.decision === 'approve';
  const edited = approved ? input.decision.editedArgs : undefined;
  const denial = approved ? null : `Denied by the user${input.decision.reason ? `: ${input.decision.reason}` : ' (no reason given)'}`;
  const now = new Date();
  const moved = await db.toolCall.updateMany({
    where: { id: input.id, status: 'awaiting_approval', argsHash: current.argsHash },
    data: {
      status: approved ? 'approved' : 'denied',
      decision: JSON.stringify(input.decision),
      decidedAt: now,
      ...(edited && { args: JSON.stringify(edited) }),
      ...(denial !== null && { result: denial, isError: true, finishedAt: now }),
    },
  });
  const after = await db.toolCall.findUniqueOrThrow({ where: { id: input.id } });
  if (moved.count !== 1) return { ok: false, reason: 'not_awaiting', call: toRecord(after) };
  return { ok: true, call: toRecord(after) };
}

/** approved → running, once: false when it already ran or is running elsewhere. */
export async function startToolCall(input: { id: string; at?: Date }): Promise<boolean> {
  const store = await getStore();
  if (store.kind === 'postgres') {
    const moved = await store.db.toolCall.updateMany({ where: { id: input.id, status: 'approved' }, data: { status: 'running', startedAt: input.at ?? new Date() } });
    return moved.count === 1;
  }
  const moved = await rawWrite(() => statement(rawDb(), `UPDATE tool_calls SET status = 'running', started_at = ? WHERE id = ? AND status = 'approved'`).run(sqliteDate(input.at ?? new Date()), input.id));
  return moved.changes === 1;
}

export async function finishToolCall(input: {
  id: string;
  /** `interrupted`: stopped by a shutdown while it ran (like a crash: not re-run, the model is told). */
  status: 'succeeded' | 'failed' | 'cancelled' | 'interrupted';
  result: string;
  isError: boolean;
  exitCode?: number | null;
  droppedBytes?: number;
  /** The result is untrusted content from this source (a web host, an MCP server, a memory). */
  resultSource?: string | null;
  /** The running call as the caller holds it: the finished one is built from it, not read back. */
  running?: ToolCallRecord;
}): Promise<ToolCallRecord | null> {
  const store = await getStore();
  const db = await getDb();
  const finished = {
    status: input.status,
    result: storableText(input.result),
    isError: input.isError,
    exitCode: input.exitCode ?? null,
    droppedBytes: input.droppedBytes ?? 0,
    finishedAt: new Date(),
    resultSource: input.resultSource ?? null,
  };
  const changes =
    store.kind === 'postgres'
      ? ((
          await pgQuery(
            pgRaw(store.url),
            'agentcsd_finish_tool_call',
            `UPDATE tool_calls SET status = $1, result = $2, is_error = $3::boolean, exit_code = $4::int, dropped_bytes = $5::int, finished_at = $6::timestamp(3), result_source = $8 WHERE id = $7 AND status = 'running'`,
            [finished.status, finished.result, finished.isError, finished.exitCode, finished.droppedBytes, pgDate(finished.finishedAt), input.id, finished.resultSource],
          )
        ).rowCount ?? 0)
      : (
          await rawWrite(() =>
            statement(
              rawDb(),
              `UPDATE tool_calls SET status = ?, result = ?, is_error = ?, exit_code = ?, dropped_bytes = ?, finished_at = ?, result_source = ? WHERE id = ? AND status = 'running'`,
            ).run(finished.status, finished.result, finished.isError ? 1 : 0, finished.exitCode, finished.droppedBytes, sqliteDate(finished.finishedAt), finished.resultSource, input.id),
          )
        ).changes;
  if (changes !== 1) return null;
  if (input.running) return { ...input.running, ...finished };
  return toRecord(await db.toolCall.findUniqueOrThrow({ where: { id: input.id } }));
}

/** A call stopped before it ran (the turn was stopped while its card waited). */
export async function cancelPendingToolCall(input: { id: string; result: string }): Promise<ToolCallRecord | null> {
  const db = await getDb();
  const moved = await db.toolCall.updateMany({
    where: { id: input.id, status: { in: ['awaiting_approval', 'approved'] } },
    data: { status: 'cancelled', result: storableText(input.result), isError: true, finishedAt: new Date() },
  });
  if (moved.count !== 1) return null;
  return toRecord(await db.toolCall.findUniqueOrThrow({ where: { id: input.id } }));
}

export const INTERRUPTED_RESULT = 'Interrupted: the app stopped while this call was running. It was not run again; check its effects before retrying.';

/**
 * At start-up (or, with several processes, when a session's mind starts here): a call found running
 * was cut by a crash. It is never re-run; the model is told.
 */
export async function interruptRunningToolCalls(input: { sessionId?: string } = {}): Promise<number> {
  const db = await getDb();
  const moved = await db.toolCall.updateMany({
    where: { status: 'running', ...(input.sessionId && { sessionId: input.sessionId }) },
    data: { status: 'interrupted', result: INTERRUPTED_RESULT, isError: true, finishedAt: new Date() },
  });
  return moved.count;
}

export async function getToolCall(input: { id: string }): Promise<ToolCallRecord | null> {
  const db = await getDb();
  const row = await db.toolCall.findUnique({ where: { id: input.id } });
  return row ? toRecord(row) : null;
}

export async function listToolCalls(input: { sessionId: string | string[]; status?: ToolCallStatus; turnId?: string; approval?: 'required'; limit?: number }): Promise<ToolCallRecord[]> {
  const db = await getDb();
  const rows = await db.toolCall.findMany({
    where: {
      sessionId: typeof input.sessionId === 'string' ? input.sessionId : { in: input.sessionId },
      ...(input.status && { status: input.status }),
      ...(input.turnId && { turnId: input.turnId }),
      ...(input.approval && { approval: input.approval }),
    },
    orderBy: [{ createdAt: 'asc' }, { step: 'asc' }, { position: 'asc' }],
    take: input.limit ?? 500,
  });
  return rows.map(toRecord);
}

/** Every call of a session in a final state, in the order they got there (tool_calls.jsonl's order). */
export async function listFinishedToolCalls(input: { sessionId: string }): Promise<ToolCallRecord[]> {
  const db = await getDb();
  const rows = await db.toolCall.findMany({
    where: { sessionId: input.sessionId, status: { in: [...FINAL_STATUSES] } },
    orderBy: [{ finishedAt: 'asc' }, { createdAt: 'asc' }, { position: 'asc' }],
  });
  return rows.map(toRecord);
}

export async function listOpenAgentTurns(input: { sessionId: string }): Promise<AgentTurnRecord[]> {
  const db = await getDb();
  const rows = await db.agentTurn.findMany({ where: { sessionId: input.sessionId, status: 'open' }, orderBy: { createdAt: 'asc' } });
  return rows.map((row) => ({ ...row, status: 'open' as const, answering: JSON.parse(row.answering) as number[] }));
}

/** The open turn of a task's step cut by a restart, with its stored steps; null when there is none. */
export async function loadOpenTaskTurn(input: { sessionId: string; taskId: string }): Promise<{ turn: AgentTurnRecord; steps: AgentStepRecord[] } | null> {
  // Asked before every step of every task; almost always there is none (one prepared statement).
  const store = await getStore();
  const sql = `SELECT 1 AS found FROM agent_turns WHERE session_id = ${store.kind === 'sqlite' ? '?' : '$1'} AND status = 'open' AND task_id = ${store.kind === 'sqlite' ? '?' : '$2'} LIMIT 1`;
  const open = store.kind === 'sqlite' ? statement(rawDb(), sql).get(input.sessionId, input.taskId) !== undefined : (await pgQuery(pgRaw(store.url), 'agentcsd_open_task_turn', sql, [input.sessionId, input.taskId])).rows.length > 0;
  if (!open) return null;
  const turn = (await listOpenAgentTurns({ sessionId: input.sessionId })).find((candidate) => candidate.taskId === input.taskId);
  if (!turn) return null;
  return { turn, steps: await loadAgentSteps({ sessionId: input.sessionId, turnId: turn.turnId }) };
}

/** The steps of a turn, each with its calls in the model's order. */
export async function loadAgentSteps(input: { sessionId: string; turnId: string }): Promise<AgentStepRecord[]> {
  const db = await getDb();
  const [steps, calls] = await Promise.all([
    db.agentStep.findMany({ where: { sessionId: input.sessionId, turnId: input.turnId }, orderBy: { step: 'asc' } }),
    db.toolCall.findMany({ where: { sessionId: input.sessionId, turnId: input.turnId }, orderBy: [{ step: 'asc' }, { position: 'asc' }] }),
  ]);
  return steps.map((step) => ({ step: step.step, assistantText: step.assistantText, calls: calls.filter((call) => call.step === step.step).map(toRecord) }));
}

/**
 * Ends a turn: it will not be continued. A call of it that nobody decided or ran by now never
 * will be (a CLI run that ended, a turn stopped): it is cancelled, not left as a card.
 */
const CANCELLED_AT_CLOSE = 'Cancelled: the turn ended before this call was decided or run.';

/** Closes a turn; the calls nobody will decide or run now are cancelled and returned (for their events). */
export async function closeAgentTurn(input: { sessionId: string; turnId: string }): Promise<ToolCallRecord[]> {
  const store = await getStore();
  const db = await getDb();
  const pending = { sessionId: input.sessionId, turnId: input.turnId, status: { in: ['proposed', 'awaiting_approval', 'approved'] } };
  // The usual end of a turn: nothing left undecided, only the turn closes (prepared statements on SQLite).
  if (store.kind === 'sqlite') {
    const raw = rawDb();
    const pendingCount = statement(raw, `SELECT COUNT(*) AS n FROM tool_calls WHERE session_id = ? AND turn_id = ? AND status IN ('proposed', 'awaiting_approval', 'approved')`);
    if ((pendingCount.get(input.sessionId, input.turnId) as { n: number }).n === 0) {
      await rawWrite(() => statement(raw, `UPDATE agent_turns SET status = 'closed' WHERE session_id = ? AND turn_id = ?`).run(input.sessionId, input.turnId));
      return [];
    }
  } else {
    // One statement: the turn closes, and whatever nobody will decide or run now is cancelled.
    const { rows: cancelled } = await pgQuery<{ id: string }>(
      pgRaw(store.url),
      'agentcsd_close_agent_turn',
      `WITH cancelled AS (
         UPDATE tool_calls SET status = 'cancelled', result = $3, is_error = true, finished_at = $4::timestamp(3)
         WHERE session_id = $1 AND turn_id = $2 AND status IN ('proposed', 'awaiting_approval', 'approved') RETURNING id
       ), closed AS (
         UPDATE agent_turns SET status = 'closed' WHERE session_id = $1 AND turn_id = $2
       )
       SELECT id FROM cancelled`,
      [input.sessionId, input.turnId, CANCELLED_AT_CLOSE, pgDate(new Date())],
    );
    if (cancelled.length === 0) return [];
    return (await db.toolCall.findMany({ where: { id: { in: cancelled.map((row) => row.id) } }, orderBy: [{ step: 'asc' }, { position: 'asc' }] })).map(toRecord);
  }
  const finishedAt = new Date();
  const [, , rows] = await db.$transaction([
    db.toolCall.updateMany({
      where: pending,
      data: { status: 'cancelled', result: CANCELLED_AT_CLOSE, isError: true, finishedAt },
    }),
    db.agentTurn.updateMany({ where: { sessionId: input.sessionId, turnId: input.turnId }, data: { status: 'closed' } }),
    db.toolCall.findMany({ where: { sessionId: input.sessionId, turnId: input.turnId, status: 'cancelled', finishedAt } }),
  ]);
  return rows.map(toRecord);
}

export { toolCallJson, type ToolCallJson } from './tool-call-json';

/** The name of a tool whose card waits in this session, if one does. */
export async function waitingCardTool(sessionId: string): Promise<string | null> {
  const call = await (await getDb()).toolCall.findFirst({ where: { sessionId, status: 'awaiting_approval' }, select: { name: true } });
  return call?.name ?? null;
}
