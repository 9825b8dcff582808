// The Responses door's responses (issue 78 §1): the Response object as the API shapes it, kept per
// key for `GET /v1/responses/:id` and for `previous_response_id`, which continues its session. A
// key reads only its own; a deleted session or a revoked key's removal takes its responses along.
import { getDb } from './db';

export interface DoorResponseRecord {
  id: string;
  keyId: string;
  sessionId: string;
  body: Record<string, unknown>;
  createdAt: Date;
}

const toRecord = (row: { id: string; keyId: string; sessionId: string; body: string; createdAt: Date }): DoorResponseRecord => ({ ...row, body: JSON.parse(row.body) as Record<string, unknown> });

/** Keeps a response, or writes its newer state (in progress → completed). */
export async function saveDoorResponse(input: { id: string; keyId: string; sessionId: string; body: Record<string, unknown> }): Promise<void> {
  const body = JSON.stringify(input.body);
  await (await getDb()).doorResponse.upsert({ where: { id: input.id }, create: { ...input, body }, update: { body } });
}

/** A key's response by its id, or null (unknown, another key's, or not stored). */
export async function findDoorResponse(keyId: string, id: string): Promise<DoorResponseRecord | null> {
  const row = await (await getDb()).doorResponse.findUnique({ where: { id } });
  return row && row.keyId === keyId ? toRecord(row) : null;
}

/** Deletes a key's response; false when it has none by that id. */
export async function deleteDoorResponse(keyId: string, id: string): Promise<boolean> {
  const { count } = await (await getDb()).doorResponse.deleteMany({ where: { id, keyId } });
  return count > 0;
}
