// What pins a session to the process running it (issue 31): a move waits for a quiet moment.
// Busy: a tool call running or awaiting a decision (its result must come back to this step), a
// turn still open (it continues where it stands), a task not finished (its durable run lives in
// this process's engine).
import { getDb } from './db';

export async function busySessions(ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const db = await getDb();
  const [calls, turns, tasks] = await Promise.all([
    db.toolCall.findMany({ where: { sessionId: { in: [...ids] }, status: { in: ['proposed', 'awaiting_approval', 'approved', 'running'] } }, select: { sessionId: true }, distinct: ['sessionId'] }),
    db.agentTurn.findMany({ where: { sessionId: { in: [...ids] }, status: 'open' }, select: { sessionId: true }, distinct: ['sessionId'] }),
    db.task.findMany({ where: { sessionId: { in: [...ids] }, status: { in: ['pending', 'running', 'blocked'] } }, select: { sessionId: true }, distinct: ['sessionId'] }),
  ]);
  return new Set([...calls, ...turns, ...tasks].map((row) => row.sessionId));
}

/** The durable runs of these sessions another process left: their tasks' runs, their cycles' and turns'. */
export async function sessionRuns(ids: readonly string[]): Promise<{ ids: string[]; prefixes: string[] }> {
  if (ids.length === 0) return { ids: [], prefixes: [] };
  const db = await getDb();
  const tasks = await db.task.findMany({ where: { sessionId: { in: [...ids] }, status: { in: ['pending', 'running', 'blocked'] } }, select: { id: true } });
  return { ids: tasks.map((task) => task.id), prefixes: ids.flatMap((id) => [`cycle:${id}:`, `turn:${id}:`]) };
}

/** Sessions with a task not yet ended (whatever their status): their runs may wait for a process. */
export async function sessionsWithOpenTasks(): Promise<string[]> {
  const rows = await (await getDb()).task.findMany({ where: { status: { in: ['pending', 'running', 'blocked'] } }, select: { sessionId: true }, distinct: ['sessionId'] });
  return rows.map((row) => row.sessionId);
}
