// An imported session's rows, written in one transaction: the session (paused) and its history.
import type { LlmCallRow } from './llm-call-writer';
import type { ModelsConfig, SessionParams } from '@/lib/config/model-config';
import type { Prisma } from '@/lib/generated/prisma/client';
import { getDb } from './db';
import type { SessionRecord } from './sessions-repository';
import { findSession } from './sessions-repository';
import { OWNER_ID } from './people-repository';

export interface ImportedSessionRows {
  session: { id: string; name: string; personaName: string; personaHash: string; models: ModelsConfig; params: SessionParams; createdAt: Date; lastActivityAt: Date; untrustedSource?: string | null };
  messages: { sessionId: string; layer: string; tag: string; content: string; cycleNumber: number | null; turnId: string | null; spontaneous: boolean; interrupted: boolean; createdAt: Date; untrustedSource?: string | null }[];
  moodAndCriteria: { sessionId: string; mood: string; criteria: string; cycleNumber: number; createdAt: Date }[];
  summaries: { sessionId: string; layer: string; summary: string; fromCycle: number; toCycle: number; createdAt: Date; untrustedSource?: string | null }[];
  calls: Omit<LlmCallRow, 'traceId'>[];
  /** Tool calls, finished ones as they were, unfinished ones expired (lib/http/session-import.ts). */
  toolCalls?: Prisma.ToolCallCreateManyInput[];
}

export async function insertImportedSession(rows: ImportedSessionRows): Promise<SessionRecord> {
  const db = await getDb();
  const { session } = rows;
  await db.$transaction([
    db.session.create({
      data: {
        id: session.id,
        name: session.name,
        personaName: session.personaName,
        personaHash: session.personaHash,
        modelConfig: JSON.stringify(session.models),
        params: JSON.stringify(session.params),
        status: 'paused',
        createdAt: session.createdAt,
        lastActivityAt: session.lastActivityAt,
        untrustedSource: session.untrustedSource ?? null,
        // An import is the owner's conversation (whoever's it was where it was exported).
        people: { create: [{ personId: OWNER_ID }] },
      },
    }),
    db.message.createMany({ data: rows.messages }),
    db.moodAndCriteria.createMany({ data: rows.moodAndCriteria }),
    db.contextSummary.createMany({ data: rows.summaries }),
    db.llmCall.createMany({ data: rows.calls }),
    db.toolCall.createMany({ data: rows.toolCalls ?? [] }),
  ]);
  const stored = await findSession({ id: session.id });
  if (!stored) throw new Error(`imported session ${session.id} vanished`);
  return stored;
}
