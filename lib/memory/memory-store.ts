// Memories per persona (ARCHITECTURE §12, seed 001's Memory Service): append without a model call
// and idempotent per normalised text and scope; short-term ones expire; promote a task's memories
// to long-term; a newer fact supersedes an older one (kept as its history); forget leaves no
// trace — the row, its full-text entry and its vector are deleted securely and the WAL is checkpointed.
import { createHash } from 'node:crypto';
import { getDb } from '@/lib/store/db';
import { rawDb, sqliteDate, statement } from '@/lib/store/raw-db';
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
}

/** Lower case, one space, no trailing punctuation: "Likes TEA." and "likes tea" are one memory. */
export function normaliseMemory(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[.!?;,:\s]+$/u, '');
}

export function memoryHash(text: string): string {
  return createHash('sha256').update(normaliseMemory(text)).digest('hex');
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
  };
}

async function connection() {
  await getDb(); // the file exists and is migrated before the direct connection works on it
  return rawDb();
}

export async function findMemory(id: number): Promise<MemoryRecord | null> {
  const row = statement(await connection(), 'SELECT * FROM memories WHERE id = ?').get(id) as MemoryRow | undefined;
  return row ? memoryOf(row) : null;
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
}): Promise<{ memory: MemoryRecord; created: boolean }> {
  const raw = await connection();
  const now = input.now ?? new Date();
  const scope = input.scope ?? 'long';
  const hash = memoryHash(input.content);
  const existing = statement(raw, 'SELECT * FROM memories WHERE persona_name = ? AND scope = ? AND content_hash = ?').get(input.personaName, scope, hash) as MemoryRow | undefined;
  if (existing) {
    const sources = [...new Set([...(JSON.parse(existing.source_message_ids) as number[]), ...(input.sourceMessageIds ?? [])])];
    if (sources.length !== (JSON.parse(existing.source_message_ids) as number[]).length) {
      statement(raw, 'UPDATE memories SET source_message_ids = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(sources), sqliteDate(now), existing.id);
      return { memory: memoryOf({ ...existing, source_message_ids: JSON.stringify(sources) }), created: false };
    }
    return { memory: memoryOf(existing), created: false };
  }
  const expiresAt = scope === 'short' ? new Date(now.getTime() + (input.ttlMs ?? DEFAULT_SHORT_TTL_MS)) : null;
  const row = statement(
    raw,
    `INSERT INTO memories (persona_name, scope, kind, content, content_hash, importance, pinned, session_id, task_id, source_message_ids, created_at, updated_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?) RETURNING *`,
  ).get(
    input.personaName,
    scope,
    input.kind ?? 'fact',
    input.content.trim(),
    hash,
    Math.min(1, Math.max(0, input.importance ?? 0.5)),
    input.sessionId ?? null,
    input.taskId ?? null,
    JSON.stringify(input.sourceMessageIds ?? []),
    sqliteDate(now),
    sqliteDate(now),
    sqliteDate(expiresAt),
  ) as MemoryRow;
  return { memory: memoryOf(row), created: true };
}

export async function listMemories(input: { personaName?: string; scope?: MemoryScope; kind?: MemoryKind; sessionId?: string; includeSuperseded?: boolean; limit?: number }): Promise<MemoryRecord[]> {
  const raw = await connection();
  const filters: [string, unknown][] = [];
  if (input.personaName) filters.push(['persona_name = ?', input.personaName]);
  if (input.scope) filters.push(['scope = ?', input.scope]);
  if (input.kind) filters.push(['kind = ?', input.kind]);
  if (input.sessionId) filters.push(['session_id = ?', input.sessionId]);
  const where = filters.map(([clause]) => clause);
  const args = filters.map(([, value]) => value);
  if (!input.includeSuperseded) where.push('valid_to IS NULL');
  const sql = `SELECT * FROM memories${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY pinned DESC, updated_at DESC LIMIT ?`;
  return (statement(raw, sql).all(...args, input.limit ?? 500) as MemoryRow[]).map(memoryOf);
}

export async function updateMemory(id: number, patch: { content?: string; pinned?: boolean; importance?: number; now?: Date }): Promise<MemoryRecord | null> {
  const raw = await connection();
  const current = statement(raw, 'SELECT * FROM memories WHERE id = ?').get(id) as MemoryRow | undefined;
  if (!current) return null;
  const content = patch.content?.trim() ?? current.content;
  const clash = patch.content !== undefined && (statement(raw, 'SELECT id FROM memories WHERE persona_name = ? AND scope = ? AND content_hash = ? AND id != ?').get(current.persona_name, current.scope, memoryHash(content), id) as { id: number } | undefined);
  if (clash) throw new MemoryError('conflict', `Memory ${clash.id} already says that`);
  statement(raw, 'UPDATE memories SET content = ?, content_hash = ?, pinned = ?, importance = ?, updated_at = ? WHERE id = ?').run(
    content,
    memoryHash(content),
    (patch.pinned ?? Boolean(current.pinned)) ? 1 : 0,
    Math.min(1, Math.max(0, patch.importance ?? current.importance)),
    sqliteDate(patch.now ?? new Date()),
    id,
  );
  return findMemory(id);
}

/** A newer fact replaces an older one: the old one keeps its text as history, out of recall. */
export async function supersedeMemory(oldId: number, newId: number, at: Date = new Date()): Promise<void> {
  statement(await connection(), 'UPDATE memories SET valid_to = ?, superseded_by = ? WHERE id = ? AND valid_to IS NULL').run(sqliteDate(at), newId, oldId);
}

/** The chain of facts a fact replaced, oldest first ("liked coffee → switched to tea"). */
export async function memoryHistory(id: number): Promise<MemoryRecord[]> {
  const raw = await connection();
  const chain: MemoryRecord[] = [];
  let current = id;
  for (let depth = 0; depth < 50; depth++) {
    const older = statement(raw, 'SELECT * FROM memories WHERE superseded_by = ?').get(current) as MemoryRow | undefined;
    if (!older) break;
    chain.unshift(memoryOf(older));
    current = older.id;
  }
  return chain;
}

/**
 * Forgets a memory and every trace of it: the row and its index entry (both deleted securely,
 * their bytes overwritten), the facts it superseded (their history tells the same thing), and a
 * WAL checkpoint so no old page keeps the text.
 */
export async function forgetMemory(id: number): Promise<boolean> {
  const raw = await connection();
  const ids = [id, ...(await memoryHistory(id)).map((memory) => memory.id)];
  const removed = raw.database.transaction(() => {
    let count = 0;
    for (const each of ids) count += statement(raw, 'DELETE FROM memories WHERE id = ?').run(each).changes;
    statement(raw, 'UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?').run(id);
    return count;
  })();
  if (removed > 0) {
    forgetVectorCache(); // its vector went with the row (a trigger); the copy in memory goes too
    checkpoint(raw.database);
  }
  return removed > 0;
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
  return statement(await connection(), 'DELETE FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?').run(sqliteDate(now)).changes;
}

/** A task's short-term memories become long-term (one already there with the same text wins). */
export async function promoteTaskMemories(taskId: string): Promise<number> {
  const raw = await connection();
  const rows = statement(raw, "SELECT * FROM memories WHERE task_id = ? AND scope = 'short'").all(taskId) as MemoryRow[];
  return raw.database.transaction(() => {
    let promoted = 0;
    for (const row of rows) {
      const twin = statement(raw, "SELECT id FROM memories WHERE persona_name = ? AND scope = 'long' AND content_hash = ?").get(row.persona_name, row.content_hash);
      if (twin) statement(raw, 'DELETE FROM memories WHERE id = ?').run(row.id);
      else promoted += statement(raw, "UPDATE memories SET scope = 'long', expires_at = NULL WHERE id = ?").run(row.id).changes;
    }
    return promoted;
  })();
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
  };
}
export type MemoryJson = ReturnType<typeof memoryJson>;
