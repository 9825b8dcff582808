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

/**
 * Who decided (issue 58, ARCHITECTURE §26): a person (their name as it was) and the path — 'page',
 * a chat kind, 'door:<key id>' — or a rule: 'rule:<rule id>', 'rule:policy' (no approval needed),
 * 'rule:guest' (refused by the rights authority).
 */
export interface DecisionAuthor {
  person_id: string | null;
  via: string;
  name?: string;
}

export interface ToolDecision {
  decision: 'approve' | 'deny';
  reason?: string;
  by: DecisionAuthor;
  editedArgs?: Record<string, unknown>;
}

/** A decision as rows written before issue 58 hold it: `by` a word, the rule apart. */
export type StoredDecision = Omit<ToolDecision, 'by'> & { by: DecisionAuthor | 'user' | 'rule' | 'policy'; ruleId?: string };

/** Any stored decision in today's shape (an old 'user' was the owner on the page). */
export function storedDecision(stored: StoredDecision): ToolDecision {
  const { by, ruleId, ...rest } = stored;
  if (typeof by === 'object') return { ...rest, by };
  if (by === 'user') return { ...rest, by: { person_id: 'owner', via: 'page' } };
  return { ...rest, by: { person_id: null, via: by === 'rule' ? `rule:${ruleId ?? 'unknown'}` : 'rule:policy' } };
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
  /** Only the owner decides it: the rights authority said so when it was proposed (a shared memory). */
  ownerOnly: boolean;
  /** Why it asks although no rule or policy would: the untrusted content its turn holds (§20). */
  untrustedReason: string | null;
  /** Its result is untrusted content from this source: the model reads it inside <untrusted_data>. */
  resultSource: string | null;
}

const VIA_WORDS: Record<string, string> = { page: 'the page', telegram: 'Telegram', discord: 'Discord', irc: 'IRC', email: 'email', slack: 'Slack' };

/** Who decided, as a person reads it: "you" (the owner on the page), "Alice on Telegram", "a rule", "Bob through a door key". */
export function decisionAuthorWords(by: DecisionAuthor, viewer: string | null = 'owner'): string {
  if (by.via === 'rule:policy') return 'no approval needed';
  if (by.via.startsWith('rule:')) return 'a rule';
  const who = by.person_id !== null && by.person_id === viewer ? 'you' : (by.name ?? (by.person_id === 'owner' ? 'the owner' : 'someone'));
  const path = by.via.startsWith('door:') ? `through the door key ${by.via.slice('door:'.length, 'door:'.length + 8)}` : `on ${VIA_WORDS[by.via] ?? by.via}`;
  return by.via === 'page' && who === 'you' ? 'you' : `${who} ${path}`;
}
