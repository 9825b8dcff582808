// What the cluster's members send each other: a request for the process that holds a session, and
// a broadcast every process hears (cluster.ts carries them over PostgreSQL: rows and NOTIFY).

export type ClusterRequest =
  | { kind: 'message'; sessionId: string; text: string; untrustedSource?: string; traceparent?: string }
  | { kind: 'stop-turn'; sessionId: string }
  /** Where the session's event numbering stands in the holder (a browser joining elsewhere). */
  | { kind: 'event-position'; sessionId: string }
  /** The session's row changed (status, models, params): its mind reads it again, its tasks are scheduled. */
  | { kind: 'session-changed'; sessionId: string }
  | { kind: 'task-resume'; sessionId: string; taskId: string; input: string }
  | { kind: 'task-cancel'; sessionId: string; taskId: string }
  /** A person's answer to an MCP server's question, for the process whose call asked it. */
  | { kind: 'elicitation-answer'; sessionId: string; id: string; answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> } };

export type ClusterBroadcast =
  | { kind: 'tool-call-decided'; callId: string }
  | { kind: 'tool-call-cancelled'; callId: string }
  /** A schedule was made or changed: every process's timer looks again (the earliest slot may be new). */
  | { kind: 'schedules-changed' }
  /** A remote MCP server's sign-in changed: every process connects it again with what is stored. */
  | { kind: 'mcp-auth-changed'; server: string };
