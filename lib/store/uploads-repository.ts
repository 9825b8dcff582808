// Files attached to messages (issue 33): one row each; the bytes are in the workspace (path).
import { getDb } from './db';

export interface UploadRecord {
  id: string;
  sessionId: string;
  name: string;
  mimeType: string;
  kind: string;
  size: number;
  sha256: string;
  path: string;
  width: number | null;
  height: number | null;
  note: string | null;
  messageId: number | null;
  createdAt: Date;
}

/** A row; with `bytes`, the store keeps the file too (a person's upload: see upload_blobs). */
export async function insertUpload(row: Omit<UploadRecord, 'createdAt' | 'messageId'> & { bytes?: Uint8Array }): Promise<UploadRecord> {
  const db = await getDb();
  const { bytes, ...fields } = row;
  return db.upload.create({ data: { ...fields, ...(bytes && { blob: { create: { bytes: new Uint8Array(bytes) } } }) } });
}

/** The stored bytes of an upload, when the store keeps them. */
export async function uploadBlob(id: string): Promise<Buffer | null> {
  const db = await getDb();
  const row = await db.uploadBlob.findUnique({ where: { uploadId: id } });
  return row ? Buffer.from(row.bytes) : null;
}

export async function findUpload(id: string): Promise<UploadRecord | null> {
  const db = await getDb();
  return db.upload.findUnique({ where: { id } });
}

/** The session's uploads among `ids` (another session's are not found). */
export async function findSessionUploads(sessionId: string, ids: readonly string[]): Promise<UploadRecord[]> {
  const db = await getDb();
  return db.upload.findMany({ where: { sessionId, id: { in: [...ids] } } });
}

/** Marks the uploads as sent with the message (each once: one already sent is left as it was); how many. */
export async function attachUploads(sessionId: string, ids: readonly string[], messageId: number): Promise<number> {
  const db = await getDb();
  return (await db.upload.updateMany({ where: { sessionId, id: { in: [...ids] }, messageId: null }, data: { messageId } })).count;
}

export async function listUploads(sessionId: string): Promise<UploadRecord[]> {
  const db = await getDb();
  return db.upload.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' } });
}

/** The JSON of ARCHITECTURE §19: `{kind: "file", id, name, mime_type, bytes, sha256}` and what the page shows. */
export function uploadJson(row: UploadRecord) {
  return {
    kind: 'file' as const,
    id: row.id,
    session_id: row.sessionId,
    name: row.name,
    mime_type: row.mimeType,
    file_kind: row.kind,
    bytes: row.size,
    sha256: row.sha256,
    path: row.path,
    width: row.width,
    height: row.height,
    note: row.note,
    message_id: row.messageId,
    url: `/api/files/${row.id}`,
    created_at: row.createdAt.toISOString(),
  };
}
