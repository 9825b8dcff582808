// Tasks as rows: created pending, moved by compare-and-set (a cancel and a finishing step cannot
// both win), their plan, usage and outcome kept as they change so a restart continues from them.
import { z } from 'zod';
import { planItemSchema, taskConstraintsSchema, type BlockedOn, type PlanItem, type TaskConstraints, type TaskStatus, type TaskUsage } from './task-types';
import { getDb, getStore } from './db';
import { parseJsonColumn } from './json-column';
import { rawDb, rawWrite, sqliteDate, statement } from './raw-db';

export interface TaskRecord {
  id: string;
  sessionId: string;
  goal: string;
  context: string | null;
  constraints: TaskConstraints;
  status: TaskStatus;
  plan: PlanItem[];
  stepsUsed: number;
  usage: TaskUsage;
  result: string | null;
  error: string | null;
  blockedOn: BlockedOn | null;
  traceId: string;
  /** The task that delegated this one (issue 34). */
  parentTaskId: string | null;
  /** Lines for its trace from outside its steps ("continued after an upgrade from …"). */
  notes: string[];
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
}

type TaskRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['task']['findUniqueOrThrow']>>;

const planSchema = z.array(planItemSchema);
const notesSchema = z.array(z.string());

function toRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    sessionId: row.sessionId,
    goal: row.goal,
    context: row.context,
    constraints: parseJsonColumn(taskConstraintsSchema, row.constraints, 'task constraints'),
    status: row.status as TaskStatus,
    plan: parseJsonColumn(planSchema, row.plan, 'task plan'),
    stepsUsed: row.stepsUsed,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, costUsd: row.costUsd, costUnknown: row.costUnknown },
    result: row.result,
    error: row.error,
    blockedOn: row.blockedOn ? (JSON.parse(row.blockedOn) as BlockedOn) : null,
    traceId: row.traceId,
    parentTaskId: row.parentTaskId,
    notes: parseJsonColumn(notesSchema, row.notes, 'task notes'),
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    updatedAt: row.updatedAt,
  };
}

export async function insertTask(input: { id: string; sessionId: string; goal: string; context: string | null; constraints: TaskConstraints; traceId: string; parentTaskId?: string | null }): Promise<TaskRecord> {
  const db = await getDb();
  const row = await db.task.create({
    data: {
      id: input.id,
      sessionId: input.sessionId,
      goal: input.goal,
      context: input.context,
      constraints: JSON.stringify(input.constraints),
      status: 'pending',
      traceId: input.traceId,
      parentTaskId: input.parentTaskId ?? null,
    },
  });
  return toRecord(row);
}

/** The tasks from the root down to this one, each with its session's persona (a delegation chain). */
export async function taskChain(taskId: string): Promise<{ taskId: string; persona: string }[]> {
  const db = await getDb();
  const chain: { taskId: string; persona: string }[] = [];
  for (let id: string | null = taskId; id !== null && chain.length < 20; ) {
    const row: { id: string; parentTaskId: string | null; session: { personaName: string } } | null = await db.task.findUnique({ where: { id }, select: { id: true, parentTaskId: true, session: { select: { personaName: true } } } });
    if (!row) break;
    chain.unshift({ taskId: row.id, persona: row.session.personaName });
    id = row.parentTaskId;
  }
  return chain;
}

/** Every task of the tree this one belongs to: its root and all the tasks delegated below it (ids). */
export async function taskTree(taskId: string): Promise<string[]> {
  const chain = await taskChain(taskId);
  if (chain.length === 0) return [];
  const db = await getDb();
  const ids = [chain[0]!.taskId];
  // Breadth first, one query per level (delegation is at most a few levels deep).
  for (let level = [ids[0]!]; level.length > 0 && ids.length < 500; ) {
    level = (await db.task.findMany({ where: { parentTaskId: { in: level } }, select: { id: true } })).map((row) => row.id);
    ids.push(...level);
  }
  return ids;
}

/** The tasks delegated from this session's tasks, and from theirs, each with its specialist (persona). */
export async function delegatedTasks(sessionId: string): Promise<(TaskRecord & { specialist: string })[]> {
  const db = await getDb();
  const found: (TaskRecord & { specialist: string })[] = [];
  let level = (await db.task.findMany({ where: { sessionId }, select: { id: true } })).map((row) => row.id);
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const rows = await db.task.findMany({ where: { parentTaskId: { in: level } }, include: { session: { select: { personaName: true } } }, orderBy: { createdAt: 'asc' } });
    found.push(...rows.map((row) => ({ ...toRecord(row), specialist: row.session.personaName })));
    level = rows.map((row) => row.id);
  }
  return found;
}

/** The tasks a task delegated, oldest first. */
export async function childTasks(parentTaskId: string): Promise<TaskRecord[]> {
  const db = await getDb();
  return (await db.task.findMany({ where: { parentTaskId }, orderBy: { createdAt: 'asc' } })).map(toRecord);
}

/** Adds a line to the task's trace notes (the last 20 kept). */
export async function addTaskNote(id: string, note: string): Promise<void> {
  const db = await getDb();
  const row = await db.task.findUnique({ where: { id }, select: { notes: true } });
  if (!row) return;
  const notes = [...parseJsonColumn(notesSchema, row.notes, 'task notes'), note].slice(-20);
  await db.task.update({ where: { id }, data: { notes: JSON.stringify(notes) } });
}

export async function findTask(id: string): Promise<TaskRecord | null> {
  const db = await getDb();
  const row = await db.task.findUnique({ where: { id } });
  return row ? toRecord(row) : null;
}

export async function listTasks(input: { sessionId?: string; statuses?: readonly TaskStatus[]; limit?: number }): Promise<TaskRecord[]> {
  const db = await getDb();
  const rows = await db.task.findMany({
    where: { ...(input.sessionId && { sessionId: input.sessionId }), ...(input.statuses && { status: { in: [...input.statuses] } }) },
    orderBy: { createdAt: 'asc' },
    take: input.limit ?? 200,
  });
  return rows.map(toRecord);
}

export interface TaskPatch {
  status?: TaskStatus;
  plan?: PlanItem[];
  stepsUsed?: number;
  usage?: TaskUsage;
  result?: string | null;
  error?: string | null;
  blockedOn?: BlockedOn | null;
  startedAt?: Date;
  finishedAt?: Date;
}

/**
 * Applies the patch when the task is in one of `from` (any status when absent); null when it was
 * not. With `current` (the task as the caller holds it) the result is built from it, not read back.
 */
export async function updateTask(id: string, patch: TaskPatch, from?: readonly TaskStatus[], current?: TaskRecord): Promise<TaskRecord | null> {
  const store = await getStore(); // the file exists and is migrated before the direct connection writes
  const updatedAt = new Date();
  if (store.kind === 'postgres') {
    const moved = await store.db.task.updateMany({ where: { id, ...(from && { status: { in: [...from] } }) }, data: taskData(patch, updatedAt) });
    if (moved.count !== 1) return null;
    return current ? { ...current, ...definedOf(patch), updatedAt } : findTask(id);
  }
  // Each step moves its task: a statement prepared once per shape of patch (raw-db.ts).
  const columns: [string, unknown][] = [];
  if (patch.status) columns.push(['status', patch.status]);
  if (patch.plan) columns.push(['plan', JSON.stringify(patch.plan)]);
  if (patch.stepsUsed !== undefined) columns.push(['steps_used', patch.stepsUsed]);
  if (patch.usage) {
    columns.push(['input_tokens', patch.usage.inputTokens], ['output_tokens', patch.usage.outputTokens], ['cost_usd', patch.usage.costUsd], ['cost_unknown', patch.usage.costUnknown ? 1 : 0]);
  }
  if (patch.result !== undefined) columns.push(['result', patch.result]);
  if (patch.error !== undefined) columns.push(['error', patch.error]);
  if (patch.blockedOn !== undefined) columns.push(['blocked_on', patch.blockedOn ? JSON.stringify(patch.blockedOn) : null]);
  if (patch.startedAt) columns.push(['started_at', sqliteDate(patch.startedAt)]);
  if (patch.finishedAt) columns.push(['finished_at', sqliteDate(patch.finishedAt)]);
  columns.push(['updated_at', sqliteDate(updatedAt)]);
  const guard = from ? ` AND status IN (${from.map(() => '?').join(', ')})` : '';
  const sql = `UPDATE tasks SET ${columns.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?${guard}`;
  const moved = await rawWrite(() => statement(rawDb(), sql).run(...columns.map(([, value]) => value), id, ...(from ?? [])));
  if (moved.changes !== 1) return null;
  if (!current) return findTask(id);
  return { ...current, ...definedOf(patch), updatedAt };
}

function definedOf(patch: TaskPatch): TaskPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as TaskPatch;
}

/** The patch as the model API's update (PostgreSQL's path). */
function taskData(patch: TaskPatch, updatedAt: Date) {
  return {
    ...(patch.status && { status: patch.status }),
    ...(patch.plan && { plan: JSON.stringify(patch.plan) }),
    ...(patch.stepsUsed !== undefined && { stepsUsed: patch.stepsUsed }),
    ...(patch.usage && { inputTokens: patch.usage.inputTokens, outputTokens: patch.usage.outputTokens, costUsd: patch.usage.costUsd, costUnknown: patch.usage.costUnknown }),
    ...(patch.result !== undefined && { result: patch.result }),
    ...(patch.error !== undefined && { error: patch.error }),
    ...(patch.blockedOn !== undefined && { blockedOn: patch.blockedOn ? JSON.stringify(patch.blockedOn) : null }),
    ...(patch.startedAt && { startedAt: patch.startedAt }),
    ...(patch.finishedAt && { finishedAt: patch.finishedAt }),
    updatedAt,
  };
}

/** A task as the API, the events and the exports show it. */
export function taskJson(task: TaskRecord) {
  return {
    id: task.id,
    session_id: task.sessionId,
    goal: task.goal,
    context: task.context,
    constraints: task.constraints,
    status: task.status,
    plan: task.plan,
    steps: task.stepsUsed,
    usage: { input_tokens: task.usage.inputTokens, output_tokens: task.usage.outputTokens, cost_usd: task.usage.costUsd, cost_unknown: task.usage.costUnknown },
    result: task.result,
    error: task.error,
    blocked_on: task.blockedOn,
    trace_id: task.traceId,
    parent_task_id: task.parentTaskId,
    notes: task.notes,
    created_at: task.createdAt.toISOString(),
    started_at: task.startedAt?.toISOString() ?? null,
    finished_at: task.finishedAt?.toISOString() ?? null,
  };
}
/** A delegated task shown in its parent's session carries the specialist's (persona's) name. */
export type TaskJson = ReturnType<typeof taskJson> & { specialist?: string };
