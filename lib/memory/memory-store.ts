// Memories per persona (ARCHITECTURE §12, seed 001's Memory Service): append without a model call
// and idempotent per normalised text and scope; short-term ones expire; promote a task's memories
// to long-term; a newer fact supersedes an older one (kept as its history); forget leaves no
// trace — the row, its full-text entry and its vector are deleted securely and the WAL is checkpointed.
import { sha256Hex } from '@/lib/security/digest';
import { getDb, getStore } from '@/lib/store/db';
import { sessionPeople } from '@/lib/store/people-repository';
import { rawDb } from '@/lib/store/raw-db';
import { storableText } from '@/lib/store/storable-text';
import { forgetVectorCache } from './vector-index';

export const MEMORY_KINDS = ['fact', 'episode', 'task_summary', 'journal'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
export type MemoryScope = 'short' | 'long';

/** Short-term memories live this long unless a caller says otherwise. */
export const DEFAULT_SHORT_TTL_MS = 24 * 3600_000;

export interface MemoryRecord {
  id: number;
  personaName: string;
  scope: MemoryScope;
  kind: MemoryKind;
  content: string;
  importance: number;
  pinned: boolean;
  sessionId: string | null;
  taskId: string | null;
  sourceMessageIds: number[];
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  validTo: Date | null;
  supersededBy: number | null;
  /** Written in a turn holding untrusted content (§20): recalled, it makes the turn untrusted. */
  untrustedSource: string | null;
  /** Readable in every conversation of the persona (issue 42); otherwise only its session's people read it. */
  shared: boolean;
  /** Whose it is for de-duplication: its session's people, sorted and joined ('' when shared or sessionless). */
  ownerKey: string;
}

/** Whose a private memory is, for de-duplication: the people of its session, sorted and joined. */
async function memoryOwnerKey(sessionId: string): Promise<string> {
  return (await sessionPeople(sessionId)).sort().join(',');
}

/** Lower case, one space, no trailing punctuation: "Likes TEA." and "likes tea" are one memory. */
export function normaliseMemory(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[.!?;,:\s]+$/u, '');
}

export function memoryHash(text: string): string {
  return sha256Hex(normaliseMemory(text));
}

interface MemoryRow {
  id: number;
  persona_name: string;
  scope: string;
  kind: string;
  content: string;
  content_hash: string;
  importance: number;
  pinned: number;
  session_id: string | null;
  task_id: string | null;
  source_message_ids: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  valid_to: string | null;
  superseded_by: number | null;
  untrusted_source: string | null;
  shared: number | boolean;
  owner_key: string;
}

export function memoryOf(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    personaName: row.persona_name,
    scope: row.scope as MemoryScope,
    kind: row.kind as MemoryKind,
    content: row.content,
    importance: row.importance,
    pinned: Boolean(row.pinned),
    sessionId: row.session_id,
    taskId: row.task_id,
    sourceMessageIds: JSON.parse(row.source_message_ids) as number[],
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    expiresAt: row.expires_at ? new Date(row.expires_at) : null,
    validTo: row.valid_to ? new Date(row.valid_to) : null,
    supersededBy: row.superseded_by,
    untrustedSource: row.untrusted_source,
    shared: Boolean(row.shared),
    ownerKey: row.owner_key,
  };
}

type MemoryModel = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['memory']['findFirstOrThrow']>>;

/** A row as the model API reads it (both databases). */
function memoryOfModel(row: MemoryModel): MemoryRecord {
  return {
    ...row,
    scope: row.scope as MemoryScope,
    kind: row.kind as MemoryKind,
    sourceMessageIds: JSON.parse(row.sourceMessageIds) as number[],
  };
}

export async function findMemory(id: number): Promise<MemoryRecord | null> {
  const row = await (await getDb()).memory.findUnique({ where: { id } });
  return row ? memoryOfModel(row) : null;
}

/** The memories with these ids, in the order given (missing ones left out). */
export async function findMemories(ids: readonly number[]): Promise<MemoryRecord[]> {
  if (ids.length === 0) return [];
  const rows = await (await getDb()).memory.findMany({ where: { id: { in: [...ids] } } });
  const byId = new Map(rows.map((row) => [row.id, memoryOfModel(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Remembers a text for a persona. No model call; the same normalised text in the same scope is
 * one memory (the existing one is returned, its sources merged).
 */
export async function appendMemory(input: {
  personaName: string;
  content: string;
  kind?: MemoryKind;
  scope?: MemoryScope;
  importance?: number;
  sessionId?: string | null;
  taskId?: string | null;
  sourceMessageIds?: number[];
  /** Short-term only: how long it lives. */
  ttlMs?: number;
  now?: Date;
  /** Where untrusted text it was written from came from; default: what its session's running turn holds, if any. */
  untrustedSource?: string | null;
  /** Readable in every conversation of the persona (the owner's decision, issue 42). */
  shared?: boolean;
}): Promise<{ memory: MemoryRecord; created: boolean }> {
  const db = await getDb();
  const now = input.now ?? new Date();
  const scope = input.scope ?? 'long';
  // A NUL (a model's `remember`, an import) is stored as ␀, as messages are: PostgreSQL's text refuses it (issue 41 §11).
  const content = storableText(input.content).trim();
  const contentHash = memoryHash(content);
  // One memory per text and owner: Bob remembering what Alice said never finds hers (issue 42).
  const shared = input.shared === true;
  const ownerKey = shared || !input.sessionId ? '' : await memoryOwnerKey(input.sessionId);
  const key = { personaName: input.personaName, scope, ownerKey, contentHash };
  const existing = await db.memory.findUnique({ where: { personaName_scope_ownerKey_contentHash: key } });
  if (existing) {
    const known = JSON.parse(existing.sourceMessageIds) as number[];
    const sources = [...new Set([...known, ...(input.sourceMessageIds ?? [])])];
    if (sources.length === known.length) return { memory: memoryOfModel(existing), created: false };
    const updated = await db.memory.update({ where: { id: existing.id }, data: { sourceMessageIds: JSON.stringify(sources), updatedAt: now } });
    return { memory: memoryOfModel(updated), created: false };
  }
  // A memory written from untrusted content stays untrusted wherever it is recalled (§20).
  const session = input.untrustedSource === undefined && input.sessionId ? await db.session.findUnique({ where: { id: input.sessionId }, select: { untrustedSource: true } }) : null;
  const untrustedSource = input.untrustedSource ?? (session?.untrustedSource ? `a memory written after reading ${session.untrustedSource}` : null);
  const row = await db.memory.create({
    data: {
      ...key,
      shared,
      untrustedSource,
      kind: input.kind ?? 'fact',
      content,
      importance: Math.min(1, Math.max(0, input.importance ?? 0.5)),
      sessionId: input.sessionId ?? null,
      taskId: input.taskId ?? null,
      sourceMessageIds: JSON.stringify(input.sourceMessageIds ?? []),
      createdAt: now,
      updatedAt: now,
      expiresAt: scope === 'short' ? new Date(now.getTime() + (input.ttlMs ?? DEFAULT_SHORT_TTL_MS)) : null,
    },
  });
  return { memory: memoryOfModel(row), created: true };
}

export async function listMemories(input: { personaName?: string; scope?: MemoryScope; kind?: MemoryKind; sessionId?: string; includeSuperseded?: boolean; limit?: number }): Promise<MemoryRecord[]> {
  const rows = await (await getDb()).memory.findMany({
    where: {
      ...(input.personaName && { personaName: input.personaName }),
      ...(input.scope && { scope: input.scope }),
      ...(input.kind && { kind: input.kind }),
      ...(input.sessionId && { sessionId: input.sessionId }),
      ...(!input.includeSuperseded && { validTo: null }),
    },
    orderBy: [{ pinned: 'desc' }, { updatedAt: 'desc' }],
    take: input.limit ?? 500,
  });
  return rows.map(memoryOfModel);
}

export async function updateMemory(id: number, patch: { content?: string; pinned?: boolean; importance?: number; shared?: boolean; now?: Date }): Promise<MemoryRecord | null> {
  const db = await getDb();
  const current = await db.memory.findUnique({ where: { id } });
  if (!current) return null;
  const content = patch.content === undefined ? current.content : storableText(patch.content).trim();
  const contentHash = memoryHash(content);
  const ownerKey = patch.shared === undefined ? current.ownerKey : patch.shared || !current.sessionId ? '' : await memoryOwnerKey(current.sessionId);
  const clash =
    (patch.content !== undefined || ownerKey !== current.ownerKey) &&
    (await db.memory.findFirst({ where: { personaName: current.personaName, scope: current.scope, ownerKey, contentHash, id: { not: id } }, select: { id: true } }));
  if (clash) throw new MemoryError('conflict', `Memory ${clash.id} already says that`);
  const updated = await db.memory.update({
    where: { id },
    data: {
      // Written only when it changed: a trigger drops the memory's vector when its text changes.
      ...(content !== current.content && { content, contentHash }),
      pinned: patch.pinned ?? current.pinned,
      shared: patch.shared ?? current.shared,
      ownerKey,
      importance: Math.min(1, Math.max(0, patch.importance ?? current.importance)),
      updatedAt: patch.now ?? new Date(),
    },
  });
  return memoryOfModel(updated);
}

/** A newer fact replaces an older one: the old one keeps its text as history, out of recall. */
export async function supersedeMemory(oldId: number, newId: number, at: Date = new Date()): Promise<void> {
  await (await getDb()).memory.updateMany({ where: { id: oldId, validTo: null }, data: { validTo: at, supersededBy: newId } });
}

/** The chain of facts a fact replaced, oldest first ("liked coffee → switched to tea"). */
export async function memoryHistory(id: number): Promise<MemoryRecord[]> {
  const db = await getDb();
  const chain: MemoryRecord[] = [];
  let current = id;
  for (let depth = 0; depth < 50; depth++) {
    const older = await db.memory.findFirst({ where: { supersededBy: current } });
    if (!older) break;
    chain.unshift(memoryOfModel(older));
    current = older.id;
  }
  return chain;
}

/**
 * Forgets a memory and every trace of it: the row and its index entry (both deleted securely,
 * their bytes overwritten), the facts it superseded (their history tells the same thing), and a
 * WAL checkpoint so no old page keeps the text. On PostgreSQL the rows and their index entries are
 * deleted; the dead row versions stay on disk until PostgreSQL's vacuum reclaims them.
 */
export async function forgetMemory(id: number): Promise<boolean> {
  const store = await getStore();
  const db = await getDb();
  const ids = [id, ...(await memoryHistory(id)).map((memory) => memory.id)];
  const [removed] = await db.$transaction([db.memory.deleteMany({ where: { id: { in: ids } } }), db.memory.updateMany({ where: { supersededBy: id }, data: { supersededBy: null } })]);
  if (removed.count > 0) {
    forgetVectorCache(); // its vector went with the row (a trigger); the copy in memory goes too
    if (store.kind === 'sqlite') checkpoint(rawDb().database);
  }
  return removed.count > 0;
}

function checkpoint(database: ReturnType<typeof rawDb>['database']): void {
  try {
    database.pragma('wal_checkpoint(TRUNCATE)');
  } catch (error) {
    console.error('[memory] WAL checkpoint after forgetting failed (it happens on the next checkpoint)', error);
  }
}

/** Short-term memories past their time go (securely, like forget). */
export async function expireMemories(now: Date = new Date()): Promise<number> {
  return (await (await getDb()).memory.deleteMany({ where: { expiresAt: { not: null, lte: now } } })).count;
}

/** A task's short-term memories become long-term (one already there with the same text wins). */
export async function promoteTaskMemories(taskId: string): Promise<number> {
  const db = await getDb();
  const rows = await db.memory.findMany({ where: { taskId, scope: 'short' } });
  if (rows.length === 0) return 0;
  const twinKey = (row: { personaName: string; ownerKey: string; contentHash: string }) => `${row.personaName}\u0000${row.ownerKey}\u0000${row.contentHash}`;
  const twins = await db.memory.findMany({ where: { scope: 'long', OR: rows.map((row) => ({ personaName: row.personaName, ownerKey: row.ownerKey, contentHash: row.contentHash })) }, select: { personaName: true, ownerKey: true, contentHash: true } });
  const taken = new Set(twins.map(twinKey));
  const [, promoted] = await db.$transaction([
    db.memory.deleteMany({ where: { id: { in: rows.filter((row) => taken.has(twinKey(row))).map((row) => row.id) } } }),
    db.memory.updateMany({ where: { id: { in: rows.filter((row) => !taken.has(twinKey(row))).map((row) => row.id) } }, data: { scope: 'long', expiresAt: null } }),
  ]);
  return promoted.count;
}

export class MemoryError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'MemoryError';
  }
}

export function memoryJson(memory: MemoryRecord) {
  return {
    id: memory.id,
    persona: memory.personaName,
    scope: memory.scope,
    kind: memory.kind,
    content: memory.content,
    importance: memory.importance,
    pinned: memory.pinned,
    session_id: memory.sessionId,
    task_id: memory.taskId,
    source_message_ids: memory.sourceMessageIds,
    created_at: memory.createdAt.toISOString(),
    updated_at: memory.updatedAt.toISOString(),
    expires_at: memory.expiresAt?.toISOString() ?? null,
    valid_to: memory.validTo?.toISOString() ?? null,
    superseded_by: memory.supersededBy,
    shared: memory.shared,
  };
}
export type MemoryJson = ReturnType<typeof memoryJson>;
