// Sessions: the saved games. Model config and params are JSON columns validated on the way out.
import { flushLlmCalls } from './llm-call-writer';
import {
  defaultParams,
  modelsConfigSchema,
  sessionParamsSchema,
  type ModelsConfig,
  type SessionParams,
} from '@/lib/config/model-config';
import { getDb } from './db';
import { parseJsonColumn } from './json-column';

export const sessionStatuses = ['active', 'paused', 'closed'] as const;
export type SessionStatus = (typeof sessionStatuses)[number];

export interface SessionRecord {
  id: string;
  name: string;
  createdAt: Date;
  lastActivityAt: Date;
  personaName: string;
  personaHash: string;
  models: ModelsConfig;
  params: SessionParams;
  status: SessionStatus;
  /** A specialist's session: the session whose task delegated to it (issue 34). */
  parentSessionId?: string | null;
  /** The untrusted content its latest turn's prompt held (§20, issue 44): that turn's calls that send data out asked first. */
  untrustedSource?: string | null;
}

type SessionRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['session']['findFirstOrThrow']>>;

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.createdAt,
    lastActivityAt: row.lastActivityAt,
    personaName: row.personaName,
    personaHash: row.personaHash,
    models: parseJsonColumn(modelsConfigSchema, row.modelConfig, 'model config'),
    params: parseJsonColumn(sessionParamsSchema, row.params, 'params', defaultParams),
    status: row.status as SessionStatus,
    parentSessionId: row.parentSessionId,
    untrustedSource: row.untrustedSource,
  };
}

export async function insertSession(input: {
  id: string;
  name: string;
  personaName: string;
  personaHash: string;
  models: ModelsConfig;
  params: SessionParams;
  status: SessionStatus;
}): Promise<SessionRecord> {
  const db = await getDb();
  const row = await db.session.create({
    data: {
      id: input.id,
      name: input.name,
      personaName: input.personaName,
      personaHash: input.personaHash,
      modelConfig: JSON.stringify(input.models),
      params: JSON.stringify(input.params),
      status: input.status,
    },
  });
  return toRecord(row);
}

export async function findSession(input: { id: string }): Promise<SessionRecord | null> {
  const db = await getDb();
  const row = await db.session.findUnique({ where: { id: input.id } });
  return row ? toRecord(row) : null;
}

export async function listSessions(input: {
  search?: string;
  page: number;
  pageSize: number;
  /** Only the sessions this person is in (a signed-in person's list, issue 61). */
  personId?: string;
}): Promise<{ sessions: SessionRecord[]; total: number }> {
  const db = await getDb();
  const search = input.search?.trim();
  const where = {
    ...(search && { OR: [{ name: { contains: search } }, { personaName: { contains: search } }, { id: { startsWith: search } }] }),
    ...(input.personId && { people: { some: { personId: input.personId } } }),
  };
  const [rows, total] = await db.$transaction([
    db.session.findMany({
      where,
      orderBy: [{ lastActivityAt: 'desc' }, { id: 'asc' }],
      skip: (input.page - 1) * input.pageSize,
      take: input.pageSize,
    }),
    db.session.count({ where }),
  ]);
  return { sessions: rows.map(toRecord), total };
}

export async function listSessionIdsByStatus(input: { status: SessionStatus }): Promise<string[]> {
  const db = await getDb();
  const rows = await db.session.findMany({ where: { status: input.status }, select: { id: true } });
  return rows.map((row) => row.id);
}

export async function updateSession(input: {
  id: string;
  name?: string;
  status?: SessionStatus;
  models?: ModelsConfig;
  params?: SessionParams;
  touch?: boolean;
}): Promise<SessionRecord | null> {
  const db = await getDb();
  const data = {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.status !== undefined && { status: input.status }),
    ...(input.models !== undefined && { modelConfig: JSON.stringify(input.models) }),
    ...(input.params !== undefined && { params: JSON.stringify(input.params) }),
    ...(input.touch && { lastActivityAt: new Date() }),
  };
  const result = await db.session.updateMany({ where: { id: input.id }, data });
  if (result.count === 0) return null;
  return findSession({ id: input.id });
}

export async function deleteSession(input: { id: string }): Promise<boolean> {
  await flushLlmCalls(); // its model-call rows first, or they would fail on the missing session
  const db = await getDb();
  const result = await db.session.deleteMany({ where: { id: input.id } });
  return result.count > 0;
}

/** Marks a session as started for another's delegated task (issue 34). */
export async function linkParentSession(id: string, parentSessionId: string): Promise<void> {
  const db = await getDb();
  await db.session.update({ where: { id }, data: { parentSessionId } });
}

/** The sessions specialists worked in for this one, and for theirs (ids, a few levels down). */
export async function childSessionIds(id: string): Promise<string[]> {
  const db = await getDb();
  const found: string[] = [];
  for (let level = [id], depth = 0; depth < 4 && level.length > 0; depth++) {
    level = (await db.session.findMany({ where: { parentSessionId: { in: level } }, select: { id: true } })).map((row) => row.id);
    found.push(...level);
  }
  return found;
}

/** The sessions of these personas a person is in, the most recently active first. */
export async function sessionsOfPerson(input: { personId: string; personas: readonly string[]; limit: number }): Promise<SessionRecord[]> {
  const rows = await (await getDb()).session.findMany({
    where: { personaName: { in: [...input.personas] }, people: { some: { personId: input.personId } } },
    orderBy: { lastActivityAt: 'desc' },
    take: input.limit,
  });
  return rows.map(toRecord);
}
