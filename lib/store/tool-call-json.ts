// A tool call as the API, the events and the exports show it: snake_case, dates as ISO strings.
import type { ToolCallRecord, ToolCallStatus, ToolDecision } from './tool-call-types';

/** A call as the API, the events and the exports show it (snake_case, dates as ISO strings). */
export interface ToolCallJson {
  id: string;
  session_id: string;
  turn_id: string;
  task_id: string | null;
  trace_id: string | null;
  step: number;
  position: number;
  provider_call_id: string;
  name: string;
  args: Record<string, unknown> | null;
  args_hash: string;
  approval: 'none' | 'required';
  status: ToolCallStatus;
  decision: ToolDecision | null;
  result: string | null;
  is_error: boolean;
  exit_code: number | null;
  dropped_bytes: number;
  created_at: string;
  decided_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** Only the owner decides it (a memory shared with everyone). */
  owner_only: boolean;
  /** Why it asks although no rule or policy would: the untrusted content its turn holds. */
  untrusted_reason: string | null;
  /** Its result came from untrusted content (this source). */
  result_source: string | null;
}

export function toolCallJson(call: ToolCallRecord): ToolCallJson {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    id: call.id,
    session_id: call.sessionId,
    turn_id: call.turnId,
    task_id: call.taskId,
    trace_id: call.traceId,
    step: call.step,
    position: call.position,
    provider_call_id: call.providerCallId,
    name: call.name,
    args: call.args,
    args_hash: call.argsHash,
    approval: call.approval,
    status: call.status,
    decision: call.decision,
    result: call.result,
    is_error: call.isError,
    exit_code: call.exitCode,
    dropped_bytes: call.droppedBytes,
    created_at: call.createdAt.toISOString(),
    decided_at: iso(call.decidedAt),
    started_at: iso(call.startedAt),
    finished_at: iso(call.finishedAt),
    owner_only: call.ownerOnly,
    untrusted_reason: call.untrustedReason,
    result_source: call.resultSource,
  };
}

/**
 * A call for a page that decides cards but does not read the conversation's words (issue 61 §6):
 * a card waiting on a decision shows what it asks (no one decides blind); anything else only its
 * tool, status and decision — its arguments (what was remembered, journaled, scheduled, opened or
 * run), its output and someone else's reason are the conversation's words (issue 72 §2.2).
 */
export function wordlessCall(call: ToolCallJson): ToolCallJson {
  const decision = call.decision && { decision: call.decision.decision, by: call.decision.by, ...(call.decision.by.person_id === 'owner' && call.decision.reason && { reason: call.decision.reason }) };
  return {
    ...call,
    args: call.status === 'awaiting_approval' ? call.args : null,
    decision,
    result: call.result === null ? null : '(its output stays with the people of this conversation)',
    dropped_bytes: 0,
  };
}
