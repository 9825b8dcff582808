// A tool call's record as the store gives it (ARCHITECTURE §10): shared by the repository and the JSON shape.

export type ToolCallStatus =
  | 'proposed'
  | 'awaiting_approval'
  | 'approved'
  | 'denied'
  | 'expired'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'interrupted';

export interface ToolDecision {
  decision: 'approve' | 'deny';
  reason?: string;
  by: 'user' | 'rule' | 'policy';
  ruleId?: string;
  editedArgs?: Record<string, unknown>;
}

export interface ToolCallRecord {
  id: string;
  sessionId: string;
  turnId: string;
  taskId: string | null;
  traceId: string | null;
  step: number;
  position: number;
  providerCallId: string;
  name: string;
  args: Record<string, unknown> | null;
  argsHash: string;
  approval: 'none' | 'required';
  status: ToolCallStatus;
  decision: ToolDecision | null;
  result: string | null;
  isError: boolean;
  exitCode: number | null;
  droppedBytes: number;
  createdAt: Date;
  decidedAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Why it asks although no rule or policy would: the untrusted content its turn holds (§20). */
  untrustedReason: string | null;
  /** Its result is untrusted content from this source: the model reads it inside <untrusted_data>. */
  resultSource: string | null;
}
